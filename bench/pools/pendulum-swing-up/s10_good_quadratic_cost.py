"""Hand-written pool entry, label: good. The classic quadratic cost of the wrapped angle, the angular speed and
the torque (negative everywhere, 0 only at rest upright with no torque)."""

import math

import numpy as np


def compute_reward(state, action, next_state):
    theta = math.atan2(float(next_state.obs[1]), float(next_state.obs[0]))
    theta_dot = float(next_state.obs[2])
    components = {
        "angle": -(theta**2),
        "speed": -0.1 * theta_dot**2,
        "effort": -0.001 * float(np.sum(np.square(action))),
    }
    return sum(components.values()), components
