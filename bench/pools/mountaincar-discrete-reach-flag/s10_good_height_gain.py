"""Hand-written pool entry, label: good. The track height gained each step (sums to the height reached), a small
time cost and a flag bonus."""

import math


def compute_reward(state, action, next_state):
    h0 = math.sin(3.0 * float(state.obs[0]))
    h1 = math.sin(3.0 * float(next_state.obs[0]))
    components = {
        "height_gain": 10.0 * (h1 - h0),
        "time": -0.1,
        "flag": 50.0 if float(next_state.obs[0]) >= 0.5 else 0.0,
    }
    return sum(components.values()), components
