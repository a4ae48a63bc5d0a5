"""Hand-written pool entry, label: weak. The swing-up's reward without the tilt: it holds the pole straight up,
0.3 rad from where the task wants it (outside the 0.15 rad band)."""

import math

import numpy as np


def compute_reward(state, action, next_state):
    cos_theta, sin_theta, theta_dot = (float(v) for v in next_state.obs[:3])
    theta = math.atan2(sin_theta, cos_theta)
    components = {
        "upright": -(theta**2),
        "speed": -0.1 * theta_dot**2,
        "effort": -0.001 * float(np.sum(np.square(action))),
    }
    return sum(components.values()), components
