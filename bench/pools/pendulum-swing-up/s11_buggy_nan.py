"""Hand-written pool entry, label: buggy. A log barrier on the height, log(cos theta): NaN whenever the pole is
below horizontal, which the critic rejects."""

import numpy as np


def compute_reward(state, action, next_state):
    cos_theta = float(next_state.obs[0])
    components = {
        "log_height": float(np.log(cos_theta)),
        "speed": -0.1 * float(next_state.obs[2]) ** 2,
        "effort": -0.001 * float(np.sum(np.square(action))),
    }
    return sum(components.values()), components
