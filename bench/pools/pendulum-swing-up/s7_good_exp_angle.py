"""Hand-written pool entry, label: good. An exponential kernel of the angle from upright (1 at the top, near 0
hanging), a stillness kernel that only counts when upright, and a torque cost."""

import math

import numpy as np

ANGLE_TEMP = 1.0  # rad^2
SPEED_TEMP = 4.0  # (rad/s)^2


def compute_reward(state, action, next_state):
    cos_theta, sin_theta, theta_dot = (float(v) for v in next_state.obs[:3])
    theta = math.atan2(sin_theta, cos_theta)
    upright = math.exp(-(theta**2) / ANGLE_TEMP)
    components = {
        "upright": upright,
        "still": 0.5 * upright * math.exp(-(theta_dot**2) / SPEED_TEMP),
        "effort": -0.002 * float(np.sum(np.square(action))),
    }
    return sum(components.values()), components
