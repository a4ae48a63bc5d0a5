"""Hand-written pool entry, label: weak. Only brings the fingertip to the object, a small effort cost: the goal is
never mentioned, so the arm parks at the object and does not push it anywhere."""

import numpy as np


def compute_reward(state, action, next_state):
    gap = next_state.body("tips_arm").pos - next_state.body("object").pos
    components = {"reach": -float(np.linalg.norm(gap)), "effort": -0.05 * float(np.sum(np.square(action)))}
    return sum(components.values()), components
