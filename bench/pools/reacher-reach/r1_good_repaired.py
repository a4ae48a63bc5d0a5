"""Hand-written pool entry, label: good. The repair of the buggy entry: the body name fixed."""

import numpy as np


def compute_reward(state, action, next_state):
    gap = next_state.body("fingertip").pos[:2] - next_state.body("target").pos[:2]
    components = {"distance": -2.0 * float(np.linalg.norm(gap))}
    return sum(components.values()), components
