"""Example reward for `halfcheetah-run`: run forward fast, without wasting effort.

Standalone: numpy and math only, `compute_reward(state, action, next_state) -> (float, dict)`.
"""

import numpy as np


def compute_reward(state, action, next_state):
    forward_velocity = (next_state.body("torso").pos[0] - state.body("torso").pos[0]) / next_state.dt
    effort = float(np.sum(np.square(action)))
    components = {
        "forward_velocity": float(forward_velocity),
        "effort_penalty": -0.1 * effort,
    }
    return sum(components.values()), components
