"""Hand-written pool entry, label: buggy. Takes the per-axis object-goal gap (an array) for the distance, so the
total is an array instead of a float: the critic rejects the contract violation and asks for a repair."""

import numpy as np


def compute_reward(state, action, next_state):
    block = next_state.body("object").pos
    goal = next_state.body("goal").pos
    to_goal = np.abs(block[:2] - goal[:2])
    to_object = float(np.linalg.norm(next_state.body("tips_arm").pos - block))
    total = -to_goal - 0.5 * to_object
    return total, {"object_to_goal": -float(np.sum(to_goal)), "tip_to_object": -0.5 * to_object}
