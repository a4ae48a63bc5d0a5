"""Hand-written pool entry, label: slow. Too slow: minus the distance and an effort cost, behind deliberate busy
work per call."""

import math

import numpy as np


def compute_reward(state, action, next_state):
    spin = 0.0
    for k in range(60_000):  # deliberate busy work: about 10 ms per call, far over the critic budget
        spin += math.cos(k * 1e-3)
    gap = next_state.body("fingertip").pos[:2] - next_state.body("target").pos[:2]
    components = {"distance": -float(np.linalg.norm(gap)), "effort": -0.05 * float(np.sum(np.square(action)))}
    components["spin"] = 0.0 * spin
    return sum(components.values()), components
