"""Hand-written pool entry, label: good. The repair of the slow energy reward: the busy work removed, the same time
cost and gap to the energy the car has at rest at the flag."""

import math


def compute_reward(state, action, next_state):
    x, v = float(next_state.obs[0]), float(next_state.obs[1])
    energy = 0.5 * (v / 0.07) ** 2 + 0.5 * (math.sin(3.0 * x) + 1.0)
    flag_energy = 0.5 * (math.sin(1.5) + 1.0)
    components = {
        "time": -1.0,
        "energy_gap": -abs(energy - flag_energy),
        "flag": 10.0 if x >= 0.5 else 0.0,
    }
    return sum(components.values()), components
