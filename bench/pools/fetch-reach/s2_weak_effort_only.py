"""Hand-written pool entry, label: weak. Only an effort cost: the gripper learns to hold still wherever it starts,
and the goal is never mentioned."""

import numpy as np


def compute_reward(state, action, next_state):
    components = {"effort": -0.1 * float(np.sum(np.square(action)))}
    return sum(components.values()), components
