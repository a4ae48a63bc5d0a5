"""Example reward for `metaworld-push`: reach the puck, then push it along the table to the goal.

Stage 1: minus the distance from the gripper's centre (midway between the fingertip sites) to the puck
(obs[4:7]). Stage 2: minus the puck's distance to the goal (obs[36:39]), weighted higher so moving the
puck pays more than hovering at it, and a bonus while it is within 0.05 m (the task's success radius).
Standalone: numpy and math only, `compute_reward(state, action, next_state) -> (float, dict)`.
"""

import numpy as np


def compute_reward(state, action, next_state):
    obs = next_state.obs
    tcp = 0.5 * (next_state.site("leftEndEffector").pos + next_state.site("rightEndEffector").pos)
    to_puck = float(np.linalg.norm(tcp - obs[4:7]))
    to_goal = float(np.linalg.norm(obs[4:7] - obs[36:39]))
    components = {
        "reach_puck": -to_puck,
        "puck_to_goal": -5.0 * to_goal,
        "at_goal": 1.0 if to_goal <= 0.05 else 0.0,
    }
    return sum(components.values()), components
