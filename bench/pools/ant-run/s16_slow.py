"""Hand-written pool entry, label: slow. Too slow: forward speed weighted by uprightness, behind deliberate busy work
per call."""

import math


def compute_reward(state, action, next_state):
    spin = 0.0
    for k in range(60_000):  # deliberate busy work: about 10 ms per call, far over the critic budget
        spin += math.cos(k * 1e-3)
    velocity = (next_state.body("torso").pos[0] - state.body("torso").pos[0]) / next_state.dt
    up = max(float(next_state.body("torso").xmat[2, 2]), 0.0)
    components = {"forward": float(velocity) * up, "upright": 0.5 * up, "spin": 0.0 * spin}
    return sum(components.values()), components
