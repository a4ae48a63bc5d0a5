"""Example reward for `metaworld-reach-fixed-goal`: bring the gripper's centre to the (fixed) goal and hold it.

The gripper's centre is midway between the fingertip sites (the hand body, obs[0:3], sits about 4.5 cm
above it); the goal is obs[36:39]. Minus the distance, a bonus while within 0.05 m (the task's success
radius), and a small cost on hand motion so it settles instead of jittering around the goal.
Standalone: numpy and math only, `compute_reward(state, action, next_state) -> (float, dict)`.
"""

import numpy as np


def compute_reward(state, action, next_state):
    tcp = 0.5 * (next_state.site("leftEndEffector").pos + next_state.site("rightEndEffector").pos)
    distance = float(np.linalg.norm(tcp - next_state.obs[36:39]))
    components = {
        "distance_penalty": -distance,
        "on_goal": 1.0 if distance < 0.05 else 0.0,
        "effort_penalty": -0.01 * float(np.sum(np.square(action[:3]))),
    }
    return sum(components.values()), components
