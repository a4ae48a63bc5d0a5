"""Hand-written pool entry, label: good. The repair of the NaN: the square root of the absolute offset, so the
closeness term is defined on both sides of the spot."""

import numpy as np


def compute_reward(state, action, next_state):
    offset = float(np.sqrt(abs(float(next_state.obs[0]) - 1.0)))
    components = {
        "alive": 1.0,
        "closeness": 1.0 - 0.5 * offset,
    }
    return sum(components.values()), components
