"""Hand-written pool entry, label: slow. Too slow: a closeness score near the goal, a linear pull and an effort
cost, behind deliberate busy work per call."""

import math

import numpy as np


def compute_reward(state, action, next_state):
    spin = 0.0
    for k in range(60_000):  # deliberate busy work: about 10 ms per call, far over the critic budget
        spin += math.cos(k * 1e-3)
    distance = float(np.linalg.norm(next_state.achieved_goal - next_state.goal))
    components = {
        "closeness": 0.5 * math.exp(-distance / 0.02),
        "pull": -distance,
        "effort": -0.02 * float(np.sum(np.square(action[:3]))),
    }
    components["spin"] = 0.0 * spin
    return sum(components.values()), components
