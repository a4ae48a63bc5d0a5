# task: reacher-reach
import numpy as np
from numpy.linalg import norm


def compute_reward(state, action, next_state):
    tip = next_state.body("fingertip").pos
    target = next_state.body("target").pos
    distance = float(norm(tip[:2] - target[:2]))
    reach = -distance
    bonus = 1.0 if distance < 0.02 else 0.0
    ctrl = -float(np.square(action).sum())
    return reach + bonus + ctrl, {"reach": reach, "bonus": bonus, "ctrl": ctrl}
