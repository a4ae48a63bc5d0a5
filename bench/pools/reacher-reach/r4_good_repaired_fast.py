"""Hand-written pool entry, label: good. The repair of the slow entry: the busy work removed, minus the distance
and an effort cost kept."""

import numpy as np


def compute_reward(state, action, next_state):
    gap = next_state.body("fingertip").pos[:2] - next_state.body("target").pos[:2]
    components = {"distance": -1.5 * float(np.linalg.norm(gap)), "effort": -0.05 * float(np.sum(np.square(action)))}
    return sum(components.values()), components
