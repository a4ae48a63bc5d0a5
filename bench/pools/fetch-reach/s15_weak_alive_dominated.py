"""Hand-written pool entry, label: weak. A constant alive bonus of 1 per step and a goal term 100x smaller: the
episode never ends early, so the bonus pays every policy the same and the tiny goal signal is lost beside it."""

import numpy as np


def compute_reward(state, action, next_state):
    gap = next_state.achieved_goal - next_state.goal
    components = {"alive": 1.0, "distance": -0.01 * float(np.linalg.norm(gap))}
    return sum(components.values()), components
