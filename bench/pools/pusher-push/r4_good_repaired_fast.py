"""Hand-written pool entry, label: good. The repair of the slow entry: the busy work removed, the push and reach
terms and the effort cost kept."""

import numpy as np


def compute_reward(state, action, next_state):
    tip = next_state.body("tips_arm").pos
    block = next_state.body("object").pos
    goal = next_state.body("goal").pos
    components = {
        "object_to_goal": -1.5 * float(np.linalg.norm(block[:2] - goal[:2])),
        "tip_to_object": -0.5 * float(np.linalg.norm(tip - block)),
        "effort": -0.05 * float(np.sum(np.square(action))),
    }
    return sum(components.values()), components
