"""Hand-written pool entry, label: buggy. A misspelt body name: the critic rejects it and asks for a repair."""

import numpy as np


def compute_reward(state, action, next_state):
    tip = next_state.body("tips_arm").pos
    block = next_state.body("objcet").pos
    goal = next_state.body("goal").pos
    components = {
        "object_to_goal": -2.0 * float(np.linalg.norm(block[:2] - goal[:2])),
        "tip_to_object": -0.5 * float(np.linalg.norm(tip - block)),
    }
    return sum(components.values()), components
