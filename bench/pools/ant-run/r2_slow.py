"""Hand-written pool entry, label: slow. A "repair" that is still too slow: rejected again."""

import math


def compute_reward(state, action, next_state):
    spin = 0.0
    for k in range(70_000):  # deliberate busy work: about 10 ms per call, far over the critic budget
        spin += math.sin(k * 1e-3)
    velocity = (next_state.body("torso").pos[0] - state.body("torso").pos[0]) / next_state.dt
    components = {"forward": float(velocity), "healthy": 0.5, "spin": 0.0 * spin}
    return sum(components.values()), components
