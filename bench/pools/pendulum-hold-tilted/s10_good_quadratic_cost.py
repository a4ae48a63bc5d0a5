"""Hand-written pool entry, label: good. Pendulum's own quadratic cost moved to the tilt: wrapped angle error squared,
0.1 x speed squared, 0.001 x torque squared."""

import math


def compute_reward(state, action, next_state):
    cos_theta, sin_theta, theta_dot = (float(v) for v in next_state.obs[:3])
    theta = math.atan2(sin_theta, cos_theta)
    error = (theta - 0.3 + math.pi) % (2 * math.pi) - math.pi
    torque = float(action[0])
    components = {
        "angle_cost": -(error**2),
        "speed_cost": -0.1 * theta_dot**2,
        "torque_cost": -0.001 * torque**2,
    }
    return sum(components.values()), components
