"""Example reward for `fetch-reach`: bring the gripper (`state.achieved_goal`) to the goal (`state.goal`).

Standalone: numpy and math only, `compute_reward(state, action, next_state) -> (float, dict)`.
"""

import numpy as np


def compute_reward(state, action, next_state):
    distance = float(np.linalg.norm(next_state.achieved_goal - next_state.goal))
    components = {
        "distance_penalty": -distance,
        "on_goal": 0.5 if distance < 0.05 else 0.0,
    }
    return sum(components.values()), components
