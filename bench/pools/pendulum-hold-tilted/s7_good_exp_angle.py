"""Hand-written pool entry, label: good. A Gaussian of the wrapped angle error (1 at the tilt, width 0.3 rad), minus
small speed and torque costs."""

import math

import numpy as np


def compute_reward(state, action, next_state):
    cos_theta, sin_theta, theta_dot = (float(v) for v in next_state.obs[:3])
    error = math.atan2(math.sin(math.atan2(sin_theta, cos_theta) - 0.3), math.cos(math.atan2(sin_theta, cos_theta) - 0.3))
    components = {
        "at_tilt": math.exp(-(error**2) / (2 * 0.3**2)),
        "speed": -0.02 * theta_dot**2,
        "effort": -0.001 * float(np.sum(np.square(action))),
    }
    return sum(components.values()), components
