"""Hand-written pool entry, label: weak. Only an effort cost: the best policy pushes nothing and the poles fall on
their own."""

import numpy as np


def compute_reward(state, action, next_state):
    components = {"effort": -0.1 * float(np.sum(np.square(action)))}
    return sum(components.values()), components
