"""Hand-written pool entry, label: buggy. The square root of the signed velocity: NaN whenever the car rolls left,
which the critic rejects."""

import numpy as np


def compute_reward(state, action, next_state):
    speed = float(np.sqrt(next_state.obs[1] / 0.07))
    components = {
        "speed": speed,
        "flag": 100.0 if float(next_state.obs[0]) >= 0.5 else 0.0,
        "time": -1.0,
    }
    return sum(components.values()), components
