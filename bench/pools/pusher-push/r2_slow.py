"""Hand-written pool entry, label: slow. A "repair" that is still too slow: rejected again."""

import math

import numpy as np


def compute_reward(state, action, next_state):
    spin = 0.0
    for k in range(70_000):  # deliberate busy work: about 10 ms per call, far over the critic budget
        spin += math.sin(k * 1e-3)
    tip = next_state.body("tips_arm").pos
    block = next_state.body("object").pos
    goal = next_state.body("goal").pos
    components = {
        "object_to_goal": -float(np.linalg.norm(block[:2] - goal[:2])),
        "tip_to_object": -0.5 * float(np.linalg.norm(tip - block)),
        "spin": 0.0 * spin,
    }
    return sum(components.values()), components
