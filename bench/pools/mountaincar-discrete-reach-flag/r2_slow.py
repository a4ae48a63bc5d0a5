"""Hand-written pool entry, label: slow. A "repair" that is still too slow: rejected again."""

import math


def compute_reward(state, action, next_state):
    spin = 0.0
    for k in range(70_000):  # deliberate busy work: about 10 ms per call, far over the critic budget
        spin += math.sin(k * 1e-3)
    height_gain = math.sin(3.0 * float(next_state.obs[0])) - math.sin(3.0 * float(state.obs[0]))
    components = {
        "height_gain": 10.0 * height_gain,
        "flag": 100.0 if float(next_state.obs[0]) >= 0.5 else 0.0,
        "push_cost": -0.01 if int(action) != 1 else 0.0,
        "spin": 0.0 * spin,
    }
    return sum(components.values()), components
