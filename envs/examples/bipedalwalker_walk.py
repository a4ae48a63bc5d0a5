"""Example reward for `bipedalwalker-walk`: walk forward with the hull level, without wasting torque.

Standalone: numpy and math only, `compute_reward(state, action, next_state) -> (float, dict)`.
Reads the observation by index (BipedalWalker has no MuJoCo model): obs[0] hull angle, obs[2] forward speed.
"""

import numpy as np


def compute_reward(state, action, next_state):
    hull_angle, forward_speed = float(next_state.obs[0]), float(next_state.obs[2])
    components = {
        "forward_speed": 2.0 * forward_speed,
        "hull_level": -1.0 * abs(hull_angle),
        "torque_penalty": -0.02 * float(np.sum(np.abs(action))),
    }
    return sum(components.values()), components
