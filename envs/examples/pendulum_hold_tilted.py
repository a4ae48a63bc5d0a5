"""Example reward for `pendulum-hold-tilted`: be near theta = +0.3, be still there, spend little torque.

Pendulum's own cost, centred on the tilt instead of the top. Standalone: numpy and math only,
`compute_reward(state, action, next_state) -> (float, dict)`.
"""

import math

import numpy as np

TARGET = 0.3  # rad from upright, the side positive torque turns the pole towards


def compute_reward(state, action, next_state):
    cos_theta, sin_theta, theta_dot = (float(v) for v in next_state.obs[:3])
    theta = math.atan2(sin_theta, cos_theta)  # 0 is upright, +-pi hanging
    error = math.atan2(math.sin(theta - TARGET), math.cos(theta - TARGET))  # wrapped to [-pi, pi]
    components = {
        "angle_cost": -(error**2),
        "speed_cost": -0.1 * theta_dot**2,
        "effort_cost": -0.001 * float(np.sum(np.square(action))),
    }
    return sum(components.values()), components
