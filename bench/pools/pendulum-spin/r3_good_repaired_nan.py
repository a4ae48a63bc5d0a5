"""Hand-written pool entry, label: good. The repair of the NaN in s11_buggy_nan: the square root of the positive part
of theta_dot, defined everywhere, with a small penalty for turning the negative way."""

import math

import numpy as np


def compute_reward(state, action, next_state):
    theta_dot = float(next_state.obs[2])
    components = {
        "speed": math.sqrt(max(theta_dot, 0.0) / 8.0),
        "backward": -0.05 * max(-theta_dot, 0.0),
        "effort": -0.001 * float(np.sum(np.square(action))),
    }
    return sum(components.values()), components
