"""Hand-written pool entry, label: good. Closeness to the tilt as the cosine of the angle error (1 there, -1 opposite),
a speed penalty that grows near the tilt (so it settles instead of swinging through), a small torque cost."""

import math

import numpy as np

TARGET = 0.3


def compute_reward(state, action, next_state):
    cos_theta, sin_theta, theta_dot = (float(v) for v in next_state.obs[:3])
    theta = math.atan2(sin_theta, cos_theta)
    closeness = math.cos(theta - TARGET)
    nearness = 0.5 * (closeness + 1.0)  # 0 opposite the tilt, 1 at it
    components = {
        "closeness": closeness,
        "still_there": -0.1 * nearness * theta_dot**2,
        "effort": -0.001 * float(np.sum(np.square(action))),
    }
    return sum(components.values()), components
