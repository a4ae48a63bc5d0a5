"""Hand-written pool entry, label: good. Alive bonus plus the tip's height, the cart kept near the centre."""

import numpy as np


def compute_reward(state, action, next_state):
    tip_height = float(next_state.site("tip").pos[2])
    components = {
        "alive": 1.0,
        "tip_height": tip_height - 1.0,
        "centre": -0.1 * abs(float(next_state.joint("slider").qpos)),
    }
    return sum(components.values()), components
