"""Hand-written pool entry, label: buggy. Takes the per-axis gripper-goal gap (an array) for the distance, so the
total is an array instead of a float: the critic rejects the contract violation and asks for a repair."""

import numpy as np


def compute_reward(state, action, next_state):
    gripper = np.asarray(next_state.obs[0:3], dtype=float)
    gap = np.abs(gripper - next_state.goal)
    total = -gap
    return total, {"distance": -float(np.sum(gap))}
