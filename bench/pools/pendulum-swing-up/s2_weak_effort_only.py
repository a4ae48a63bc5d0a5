"""Hand-written pool entry, label: weak. Only a torque cost: "spend as little as possible" with nothing about
where the pole should be, so hanging still is optimal."""

import numpy as np


def compute_reward(state, action, next_state):
    components = {"effort": -0.1 * float(np.sum(np.square(action)))}
    return sum(components.values()), components
