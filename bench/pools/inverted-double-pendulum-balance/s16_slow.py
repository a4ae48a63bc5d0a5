"""Hand-written pool entry, label: slow. Too slow: alive plus uprightness, behind deliberate busy work per call."""

import math


def compute_reward(state, action, next_state):
    spin = 0.0
    for k in range(60_000):  # deliberate busy work: about 10 ms per call, far over the critic budget
        spin += math.sin(k * 1e-3)
    angles = [float(next_state.joint("hinge").qpos), float(next_state.joint("hinge2").qpos)]
    components = {"alive": 1.0, "upright": -sum(a * a for a in angles), "spin": 0.0 * spin}
    return sum(components.values()), components
