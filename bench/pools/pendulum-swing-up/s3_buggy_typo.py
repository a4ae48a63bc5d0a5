"""Hand-written pool entry, label: buggy. A misspelt attribute (`observation` for `obs`): the critic rejects it and
asks for a repair."""

import math

import numpy as np


def compute_reward(state, action, next_state):
    theta = math.atan2(float(next_state.observation[1]), float(next_state.observation[0]))
    components = {
        "angle": -(theta**2),
        "speed": -0.1 * float(next_state.obs[2]) ** 2,
        "effort": -0.001 * float(np.sum(np.square(action))),
    }
    return sum(components.values()), components
