"""Hand-written pool entry, label: good. The repair of the typo: `obs` throughout, the same wrapped-angle, speed
and torque costs."""

import math

import numpy as np


def compute_reward(state, action, next_state):
    theta = math.atan2(float(next_state.obs[1]), float(next_state.obs[0]))
    components = {
        "angle": -(theta**2),
        "speed": -0.1 * float(next_state.obs[2]) ** 2,
        "effort": -0.001 * float(np.sum(np.square(action))),
    }
    return sum(components.values()), components
