"""Hand-written pool entry, label: good. The repair of the buggy entry: the attribute name fixed; minus twice the
gripper-goal distance, dense, expected to learn fast."""

import numpy as np


def compute_reward(state, action, next_state):
    distance = float(np.linalg.norm(next_state.achieved_goal - next_state.goal))
    components = {"distance": -2.0 * distance}
    return sum(components.values()), components
