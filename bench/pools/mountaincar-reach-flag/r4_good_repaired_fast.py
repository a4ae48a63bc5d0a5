"""Hand-written pool entry, label: good. The repair of the slow entry: the busy work removed, the height gained and
the flag bonus kept."""

import math

import numpy as np


def compute_reward(state, action, next_state):
    height_gain = math.sin(3.0 * float(next_state.obs[0])) - math.sin(3.0 * float(state.obs[0]))
    components = {
        "height_gain": 10.0 * height_gain,
        "flag": 100.0 if float(next_state.obs[0]) >= 0.45 else 0.0,
        "effort": -0.1 * float(np.sum(np.square(action))),
    }
    return sum(components.values()), components
