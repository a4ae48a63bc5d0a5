"""Example reward for `metaworld-drawer-open`: reach the drawer's handle, then pull the drawer out to the goal.

Stage 1: minus the distance from the gripper's centre (midway between the fingertip sites) to the handle
(obs[4:7]). Stage 2: minus the handle's distance to the goal (obs[36:39]), weighted higher, and a bonus
while it is within 0.03 m of it (the task's success criterion).
Standalone: numpy and math only, `compute_reward(state, action, next_state) -> (float, dict)`.
"""

import numpy as np


def compute_reward(state, action, next_state):
    obs = next_state.obs
    tcp = 0.5 * (next_state.site("leftEndEffector").pos + next_state.site("rightEndEffector").pos)
    to_handle = float(np.linalg.norm(tcp - obs[4:7]))
    to_goal = float(np.linalg.norm(obs[4:7] - obs[36:39]))
    components = {
        "reach_handle": -to_handle,
        "pull_open": -5.0 * to_goal,
        "drawer_open": 1.0 if to_goal <= 0.03 else 0.0,
    }
    return sum(components.values()), components
