"""Hand-written pool entry, label: slow. Too slow: a closeness reward behind deliberate busy work per call."""

import math


def compute_reward(state, action, next_state):
    spin = 0.0
    for k in range(70_000):  # deliberate busy work: about 10 ms per call, far over the critic budget
        spin += math.sin(k * 1e-3)
    distance = abs(float(next_state.obs[0]) - 1.0)
    components = {
        "alive": 1.0,
        "closeness": math.exp(-distance),
        "spin": 0.0 * spin,
    }
    return sum(components.values()), components
