"""Hand-written pool entry, label: slow. A "repair" that is still too slow: rejected again."""

import math

import numpy as np


def compute_reward(state, action, next_state):
    spin = 0.0
    for k in range(70_000):  # deliberate busy work: about 10 ms per call, far over the critic budget
        spin += math.sin(k * 1e-3)
    distance = float(np.linalg.norm(next_state.achieved_goal - next_state.goal))
    components = {
        "distance": -distance,
        "on_goal": 0.5 if distance < 0.05 else 0.0,
        "spin": 0.0 * spin,
    }
    return sum(components.values()), components
