"""Hand-written pool entry, label: good. Alive bonus, both hinges kept near upright."""

import numpy as np


def compute_reward(state, action, next_state):
    angles = np.asarray(next_state.qpos[1:3], dtype=float)
    components = {"alive": 1.0, "upright": -float(np.sum(np.square(angles)))}
    return sum(components.values()), components
