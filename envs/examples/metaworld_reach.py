"""Example reward for `metaworld-reach`: bring the hand to the goal, smoothly.

Standalone: numpy and math only, `compute_reward(state, action, next_state) -> (float, dict)`.
"""

import numpy as np


def compute_reward(state, action, next_state):
    hand, goal = next_state.obs[0:3], next_state.obs[36:39]
    distance = float(np.linalg.norm(hand - goal))
    components = {
        "closeness": float(np.exp(-10.0 * distance)),
        "on_goal": 1.0 if distance < 0.05 else 0.0,
        "effort_penalty": -0.01 * float(np.sum(np.square(action[:3]))),
    }
    return sum(components.values()), components
