"""Hand-written pool entry, label: good. The env's own reward turned round: minus the root slide's velocity, a
control cost of 0.1 per unit squared action."""

import numpy as np


def compute_reward(state, action, next_state):
    components = {
        "backward": -float(next_state.joint("rootx").qvel),
        "control": -0.1 * float(np.sum(np.square(action))),
    }
    return sum(components.values()), components
