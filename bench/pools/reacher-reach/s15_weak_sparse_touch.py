"""Hand-written pool entry, label: weak. Pays only when the fingertip is within 5 mm of the target: the right goal,
but a random arm almost never sees the signal, so there is nothing to learn from."""

import numpy as np


def compute_reward(state, action, next_state):
    gap = next_state.body("fingertip").pos[:2] - next_state.body("target").pos[:2]
    components = {"touch": 1.0 if float(np.linalg.norm(gap)) < 0.005 else 0.0}
    return sum(components.values()), components
