"""Hand-written pool entry, label: slow. A "repair" that is still too slow: rejected again."""

import math


def compute_reward(state, action, next_state):
    spin = 0.0
    for k in range(70_000):  # deliberate busy work: about 10 ms per call, far over the critic budget
        spin += math.sin(k * 1e-3)
    cos1, sin1, cos2, sin2 = (float(v) for v in next_state.obs[:4])
    height = -cos1 - (cos1 * cos2 - sin1 * sin2)
    components = {
        "time": -1.0,
        "height": 0.3 * (height + 2.0) / 3.0,
        "spin": 0.0 * spin,
    }
    return sum(components.values()), components
