"""Hand-written pool entry, label: buggy. The square root of the signed angle error: NaN whenever the pole is short
of the tilt, which the critic rejects."""

import math

import numpy as np


def compute_reward(state, action, next_state):
    theta = math.atan2(float(next_state.obs[1]), float(next_state.obs[0]))
    error = float(np.sqrt(theta - 0.3))
    components = {
        "closeness": 1.0 - error,
        "speed": -0.1 * float(next_state.obs[2]) ** 2,
    }
    return sum(components.values()), components
