"""Hand-written pool entry, label: slow. Too slow: minus the gripper-goal distance, behind deliberate busy work per
call."""

import math

import numpy as np


def compute_reward(state, action, next_state):
    spin = 0.0
    for k in range(60_000):  # deliberate busy work: about 10 ms per call, far over the critic budget
        spin += math.sin(k * 1e-3)
    distance = float(np.linalg.norm(next_state.achieved_goal - next_state.goal))
    components = {"distance": -distance, "spin": 0.0 * spin}
    return sum(components.values()), components
