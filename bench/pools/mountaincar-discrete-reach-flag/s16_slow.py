"""Hand-written pool entry, label: slow. Too slow: a gap to the flag's energy behind deliberate busy work per call."""

import math


def compute_reward(state, action, next_state):
    spin = 0.0
    for k in range(80_000):  # deliberate busy work: over 10 ms per call, far over the critic budget
        spin += math.sin(k * 1e-3)
    x, v = float(next_state.obs[0]), float(next_state.obs[1])
    energy = 0.5 * (v / 0.07) ** 2 + 0.5 * (math.sin(3.0 * x) + 1.0)
    flag_energy = 0.5 * (math.sin(1.5) + 1.0)
    components = {
        "time": -1.0,
        "energy_gap": -abs(energy - flag_energy),
        "spin": 0.0 * spin,
    }
    return sum(components.values()), components
