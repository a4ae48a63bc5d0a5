"""Hand-written pool entry, label: weak. A constant alive bonus of 1 per step and a goal term 100x smaller: the
episode never ends early, so the bonus pays every policy the same and the tiny goal signal is lost beside it."""

import numpy as np


def compute_reward(state, action, next_state):
    gap = next_state.body("object").pos[:2] - next_state.body("goal").pos[:2]
    components = {"alive": 1.0, "object_to_goal": -0.01 * float(np.linalg.norm(gap))}
    return sum(components.values()), components
