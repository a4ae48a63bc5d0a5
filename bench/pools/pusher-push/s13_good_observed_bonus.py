"""Hand-written pool entry, label: good. The positions as the observation lists them (obs[14:23]): minus the
object-goal distance, minus half the fingertip-object distance, a bonus inside the 0.05 m success radius."""

import numpy as np

SUCCESS_RADIUS = 0.05
SUCCESS_BONUS = 1.0


def compute_reward(state, action, next_state):
    obs = np.asarray(next_state.obs, dtype=float)
    tip, block, goal = obs[14:17], obs[17:20], obs[20:23]
    to_goal = float(np.linalg.norm(block[:2] - goal[:2]))
    components = {
        "object_to_goal": -to_goal,
        "tip_to_object": -0.5 * float(np.linalg.norm(tip - block)),
        "on_goal": SUCCESS_BONUS if to_goal < SUCCESS_RADIUS else 0.0,
        "control": -0.05 * float(np.sum(np.square(action))),
    }
    return sum(components.values()), components
