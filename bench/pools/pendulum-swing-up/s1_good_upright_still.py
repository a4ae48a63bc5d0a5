"""Hand-written pool entry, label: good. Height of the pole tip (cos theta) every step, a speed penalty that grows
as the pole nears the top (so it settles there instead of swinging through), a small torque cost."""

import numpy as np

SPEED_WEIGHT = 0.1
EFFORT_WEIGHT = 0.001


def compute_reward(state, action, next_state):
    cos_theta, theta_dot = float(next_state.obs[0]), float(next_state.obs[2])
    nearness = 0.5 * (cos_theta + 1.0)  # 0 hanging, 1 upright
    components = {
        "height": cos_theta,
        "still_at_top": -SPEED_WEIGHT * nearness * theta_dot**2,
        "effort": -EFFORT_WEIGHT * float(np.sum(np.square(action))),
    }
    return sum(components.values()), components
