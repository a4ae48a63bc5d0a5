"""Hand-written pool entry, label: slow. Too slow: reach the object and push it to the goal with an effort cost,
behind deliberate busy work per call."""

import math

import numpy as np


def compute_reward(state, action, next_state):
    spin = 0.0
    for k in range(60_000):  # deliberate busy work: about 10 ms per call, far over the critic budget
        spin += math.cos(k * 1e-3)
    tip = next_state.body("tips_arm").pos
    block = next_state.body("object").pos
    goal = next_state.body("goal").pos
    components = {
        "object_to_goal": -1.5 * float(np.linalg.norm(block[:2] - goal[:2])),
        "tip_to_object": -0.5 * float(np.linalg.norm(tip - block)),
        "effort": -0.05 * float(np.sum(np.square(action))),
    }
    components["spin"] = 0.0 * spin
    return sum(components.values()), components
