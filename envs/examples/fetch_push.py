"""Example reward for `fetch-push`: reach the block, then push it to the goal (`state.goal`).

Standalone: numpy and math only, `compute_reward(state, action, next_state) -> (float, dict)`.
"""

import numpy as np


def compute_reward(state, action, next_state):
    gripper, block = next_state.obs[0:3], next_state.achieved_goal
    to_block = float(np.linalg.norm(gripper - block))
    to_goal = float(np.linalg.norm(block - next_state.goal))
    components = {
        "reach_block": -to_block,
        "block_to_goal": -5.0 * to_goal,
        "at_goal": 1.0 if to_goal < 0.05 else 0.0,
    }
    return sum(components.values()), components
