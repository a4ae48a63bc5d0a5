"""Hand-written pool entry, label: weak. Only the fuel cost: the cheapest policy does nothing, and nothing here
says where the flag is."""

import numpy as np

EFFORT_WEIGHT = 0.1


def compute_reward(state, action, next_state):
    components = {"effort": -EFFORT_WEIGHT * float(np.sum(np.square(action)))}
    return sum(components.values()), components
