"""Hand-written pool entry, label: slow. Too slow: a sensible reward behind deliberate busy work per call."""

import math


def compute_reward(state, action, next_state):
    spin = 0.0
    for k in range(60_000):  # deliberate busy work: about 10 ms per call, far over the critic budget
        spin += math.sin(k * 1e-3)
    velocity = (next_state.body("torso").pos[0] - state.body("torso").pos[0]) / next_state.dt
    components = {"forward": float(velocity), "healthy": 0.5, "spin": 0.0 * spin}
    return sum(components.values()), components
