"""Hand-written pool entry, label: good. A bounded closeness score exp(-object-goal distance / 0.1), a linear pull
for when the object is far, and a reach term bringing the fingertip to the object."""

import math

import numpy as np

GOAL_TEMP = 0.1
PULL_WEIGHT = 0.5
REACH_WEIGHT = 0.5


def compute_reward(state, action, next_state):
    tip = next_state.body("tips_arm").pos
    block = next_state.body("object").pos
    goal = next_state.body("goal").pos
    to_goal = float(np.linalg.norm(block[:2] - goal[:2]))
    components = {
        "closeness": math.exp(-to_goal / GOAL_TEMP),
        "pull": -PULL_WEIGHT * to_goal,
        "reach": -REACH_WEIGHT * float(np.linalg.norm(tip - block)),
    }
    return sum(components.values()), components
