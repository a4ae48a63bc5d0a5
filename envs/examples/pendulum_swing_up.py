"""Example reward for `pendulum-swing-up`: be near the top, be still there, spend little torque.

Standalone: numpy and math only, `compute_reward(state, action, next_state) -> (float, dict)`.
"""

import math

import numpy as np


def compute_reward(state, action, next_state):
    cos_theta, sin_theta, theta_dot = (float(v) for v in next_state.obs[:3])
    theta = math.atan2(sin_theta, cos_theta)  # 0 is upright, +-pi hanging
    components = {
        "angle_cost": -(theta**2),
        "speed_cost": -0.1 * theta_dot**2,
        "effort_cost": -0.001 * float(np.sum(np.square(action))),
    }
    return sum(components.values()), components
