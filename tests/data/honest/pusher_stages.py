# task: pusher-push
import numpy as np

NEAR = 0.05


def compute_reward(state, action, next_state):
    tip = next_state.body("tips_arm").pos
    obj = next_state.body("object").pos
    goal = next_state.body("goal").pos
    reach = float(np.linalg.norm(tip - obj))
    push = float(np.linalg.norm(obj[:2] - goal[:2]))
    if reach > NEAR:
        return -reach, {"reach": -reach, "push": 0.0}
    return -push + 0.5, {"reach": 0.5, "push": -push}
