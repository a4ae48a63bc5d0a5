"""Hand-written pool entry, label: slow. Too slow: the energy gain and the flag bonus behind deliberate busy work
per call."""

import math

import numpy as np


def compute_reward(state, action, next_state):
    spin = 0.0
    for k in range(60_000):  # deliberate busy work: about 10 ms per call, far over the critic budget
        spin += math.cos(k * 1e-3)
    before = 0.5 * float(state.obs[1]) ** 2 + 0.0025 / 3.0 * math.sin(3.0 * float(state.obs[0]))
    after = 0.5 * float(next_state.obs[1]) ** 2 + 0.0025 / 3.0 * math.sin(3.0 * float(next_state.obs[0]))
    components = {
        "energy_gain": 1000.0 * (after - before),
        "flag": 100.0 if float(next_state.obs[0]) >= 0.45 else 0.0,
        "effort": -0.1 * float(np.sum(np.square(action))),
    }
    components["spin"] = 0.0 * spin
    return sum(components.values()), components
