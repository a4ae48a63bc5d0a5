"""Hand-written pool entry, label: slow. Too slow: a staged reward behind deliberate busy work per call."""

import math


def compute_reward(state, action, next_state):
    spin = 0.0
    for k in range(70_000):  # deliberate busy work: about 10 ms per call, far over the critic budget
        spin += math.sin(k * 1e-3)
    before = abs(float(state.obs[0]) - 1.0)
    after = abs(float(next_state.obs[0]) - 1.0)
    components = {
        "alive": 1.0,
        "approach": 5.0 * (before - after),
        "hold": 1.0 if after < 0.2 else 0.0,
        "spin": 0.0 * spin,
    }
    return sum(components.values()), components
