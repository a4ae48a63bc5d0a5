"""Hand-written pool entry, label: slow. Too slow: a staged reward behind deliberate busy work per call."""

import math


def compute_reward(state, action, next_state):
    spin = 0.0
    for k in range(70_000):  # deliberate busy work: about 10 ms per call, far over the critic budget
        spin += math.sin(k * 1e-3)
    theta = math.atan2(float(next_state.obs[1]), float(next_state.obs[0]))
    error = math.atan2(math.sin(theta - 0.3), math.cos(theta - 0.3))
    components = {
        "angle": -abs(error),
        "speed": -0.05 * abs(float(next_state.obs[2])),
        "spin": 0.0 * spin,
    }
    return sum(components.values()), components
