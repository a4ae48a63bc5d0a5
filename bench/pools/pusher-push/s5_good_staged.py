"""Hand-written pool entry, label: good. Staged: reach the object (minus the fingertip-object distance), a small
bonus while the fingertip is at the object, then the push (minus the object-goal distance, weighted more), a small
effort cost."""

import numpy as np

REACH_WEIGHT = 0.5
NEAR_RADIUS = 0.1  # m: the fingertip touches the cylinder's side at about 0.06 m from its centre
NEAR_BONUS = 0.2
PUSH_WEIGHT = 2.0
EFFORT_WEIGHT = 0.05


def compute_reward(state, action, next_state):
    tip = next_state.body("tips_arm").pos
    block = next_state.body("object").pos
    goal = next_state.body("goal").pos
    to_object = float(np.linalg.norm(tip - block))
    to_goal = float(np.linalg.norm(block[:2] - goal[:2]))
    components = {
        "reach": -REACH_WEIGHT * to_object,
        "at_object": NEAR_BONUS if to_object < NEAR_RADIUS else 0.0,
        "push": -PUSH_WEIGHT * to_goal,
        "effort": -EFFORT_WEIGHT * float(np.sum(np.square(action))),
    }
    return sum(components.values()), components
