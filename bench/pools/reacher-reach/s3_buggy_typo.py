"""Hand-written pool entry, label: buggy. A misspelt body name: the critic rejects it and asks for a repair."""

import numpy as np


def compute_reward(state, action, next_state):
    gap = next_state.body("fingertp").pos[:2] - next_state.body("target").pos[:2]
    components = {"distance": -2.0 * float(np.linalg.norm(gap))}
    return sum(components.values()), components
