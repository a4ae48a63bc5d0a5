"""Hand-written pool entry, label: weak. Only an effort cost: the arm learns to hold still, and the object stays
wherever it was placed."""

import numpy as np


def compute_reward(state, action, next_state):
    components = {"effort": -0.1 * float(np.sum(np.square(action)))}
    return sum(components.values()), components
