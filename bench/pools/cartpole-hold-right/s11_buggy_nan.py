"""Hand-written pool entry, label: buggy. The square root of the signed offset from the spot: NaN whenever the cart is
left of it, which the critic rejects."""

import numpy as np


def compute_reward(state, action, next_state):
    offset = float(np.sqrt(float(next_state.obs[0]) - 1.0))
    components = {
        "alive": 1.0,
        "closeness": 1.0 - offset,
    }
    return sum(components.values()), components
