"""Hand-written pool entry, label: weak. Only an effort cost: the cheetah learns to lie still."""

import numpy as np


def compute_reward(state, action, next_state):
    components = {"effort": -0.1 * float(np.sum(np.square(action)))}
    return sum(components.values()), components
