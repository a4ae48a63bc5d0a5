"""Hand-written pool entry, label: good. The repair of the array total: the object-goal gap taken as its Euclidean
norm, a float."""

import numpy as np


def compute_reward(state, action, next_state):
    block = next_state.body("object").pos
    goal = next_state.body("goal").pos
    to_goal = float(np.linalg.norm(block[:2] - goal[:2]))
    to_object = float(np.linalg.norm(next_state.body("tips_arm").pos - block))
    components = {"object_to_goal": -to_goal, "tip_to_object": -0.5 * to_object}
    return sum(components.values()), components
