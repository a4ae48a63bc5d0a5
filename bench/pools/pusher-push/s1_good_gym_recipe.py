"""Hand-written pool entry, label: good. Gymnasium's recipe: minus the object-goal distance (xy), minus half the
fingertip-object distance (to bring the arm to the object first) and a control cost of 0.1."""

import numpy as np


def compute_reward(state, action, next_state):
    tip = next_state.body("tips_arm").pos
    block = next_state.body("object").pos
    goal = next_state.body("goal").pos
    components = {
        "object_to_goal": -float(np.linalg.norm(block[:2] - goal[:2])),
        "tip_to_object": -0.5 * float(np.linalg.norm(tip - block)),
        "control": -0.1 * float(np.sum(np.square(action))),
    }
    return sum(components.values()), components
