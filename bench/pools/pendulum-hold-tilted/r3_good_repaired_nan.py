"""Hand-written pool entry, label: good. The repair of the NaN: the square root of the absolute wrapped error, so the
closeness term is defined on both sides of the tilt."""

import math

import numpy as np


def compute_reward(state, action, next_state):
    theta = math.atan2(float(next_state.obs[1]), float(next_state.obs[0]))
    error = math.atan2(math.sin(theta - 0.3), math.cos(theta - 0.3))
    components = {
        "closeness": 1.0 - float(np.sqrt(abs(error))),
        "speed": -0.1 * float(next_state.obs[2]) ** 2,
    }
    return sum(components.values()), components
