"""Hand-written pool entry, label: weak. Only a torque cost: it teaches the policy to do nothing, so the pole hangs."""

import numpy as np


def compute_reward(state, action, next_state):
    effort = -float(np.sum(np.square(action)))
    return effort, {"effort": effort}
