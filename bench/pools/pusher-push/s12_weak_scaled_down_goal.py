"""Hand-written pool entry, label: weak. Gymnasium's distance terms scaled down 100x next to an unscaled control
cost: the effort term dwarfs them, so the arm learns mostly to hold still."""

import numpy as np


def compute_reward(state, action, next_state):
    tip = next_state.body("tips_arm").pos
    block = next_state.body("object").pos
    goal = next_state.body("goal").pos
    components = {
        "object_to_goal": -0.01 * float(np.linalg.norm(block[:2] - goal[:2])),
        "tip_to_object": -0.005 * float(np.linalg.norm(tip - block)),
        "control": -0.1 * float(np.sum(np.square(action))),
    }
    return sum(components.values()), components
