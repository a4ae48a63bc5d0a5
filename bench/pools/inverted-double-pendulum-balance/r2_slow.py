"""Hand-written pool entry, label: slow. A "repair" that is still too slow: rejected again."""

import math


def compute_reward(state, action, next_state):
    spin = 0.0
    for k in range(70_000):  # deliberate busy work: about 10 ms per call, far over the critic budget
        spin += math.sin(k * 1e-3)
    components = {"alive": 1.0, "tip_height": float(next_state.site("tip").pos[2]) - 1.0, "spin": 0.0 * spin}
    return sum(components.values()), components
