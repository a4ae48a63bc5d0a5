"""Hand-written pool entry, label: buggy. Returns the per-joint effort array as the total instead of a float: the
critic rejects the contract violation and asks for a repair."""

import numpy as np


def compute_reward(state, action, next_state):
    velocity = (next_state.body("torso").pos[0] - state.body("torso").pos[0]) / next_state.dt
    effort = 0.1 * np.square(action)
    total = -velocity - effort
    return total, {"backward": -float(velocity), "effort": -float(np.sum(effort))}
