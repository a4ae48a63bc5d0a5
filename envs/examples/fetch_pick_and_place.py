"""Example reward for `fetch-pick-and-place`: reach the block, grasp it, lift it and hold it at the goal.

Staged and dense: minus the gripper-to-block distance (obs[6:9]); a bonus while both fingers touch the
block (a grasp); while grasped, the block's height above the table (it rests at z 0.425), so lifting
pays before the block reaches the goal; minus the block-to-goal distance (`achieved_goal` to `goal`,
the goal is often in the air), weighted highest; a bonus while within 0.05 m of it (the task's success
radius, judged at the episode's end, so holding it there pays every step).
Standalone: numpy and math only, `compute_reward(state, action, next_state) -> (float, dict)`.
"""

import numpy as np

TABLE_Z = 0.425  # the block's centre height resting on the table


def compute_reward(state, action, next_state):
    to_block = float(np.linalg.norm(next_state.obs[6:9]))
    block, goal = next_state.achieved_goal, next_state.goal
    to_goal = float(np.linalg.norm(block - goal))
    grasped = next_state.touching("robot0:r_gripper_finger_link", "object0") and next_state.touching(
        "robot0:l_gripper_finger_link", "object0"
    )
    lift = min(max(float(block[2]) - TABLE_Z, 0.0), 0.45)
    components = {
        "reach_block": -to_block,
        "grasp": 0.5 if grasped else 0.0,
        "lift_block": 2.0 * lift if grasped else 0.0,
        "block_to_goal": -5.0 * to_goal,
        "at_goal": 1.0 if to_goal < 0.05 else 0.0,
    }
    return sum(components.values()), components
