"""Hand-written pool entry, label: weak. Only a torque cost: nothing asks the pole to turn, so the best policy is to
do nothing and let it hang."""

import numpy as np


def compute_reward(state, action, next_state):
    components = {
        "effort": -0.1 * float(np.sum(np.square(action))),
    }
    return sum(components.values()), components
