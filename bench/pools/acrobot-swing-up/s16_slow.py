"""Hand-written pool entry, label: slow. Too slow: an energy-gap reward behind deliberate busy work per call."""

import math


def compute_reward(state, action, next_state):
    spin = 0.0
    for k in range(80_000):  # deliberate busy work: over 10 ms per call, far over the critic budget
        spin += math.sin(k * 1e-3)
    cos1, sin1, cos2, sin2 = (float(v) for v in next_state.obs[:4])
    height = -cos1 - (cos1 * cos2 - sin1 * sin2)
    w1, w2 = float(next_state.obs[4]), float(next_state.obs[5])
    energy = 9.8 * height + 0.5 * (w1**2 + w2**2)
    components = {
        "time": -1.0,
        "energy_gap": -abs(energy - 9.8) / 40.0,
        "spin": 0.0 * spin,
    }
    return sum(components.values()), components
