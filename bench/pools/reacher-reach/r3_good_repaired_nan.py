"""Hand-written pool entry, label: good. The repair of the NaN bug: the Euclidean distance of the gap."""

import numpy as np


def compute_reward(state, action, next_state):
    gap = next_state.body("fingertip").pos[:2] - next_state.body("target").pos[:2]
    distance = float(np.sqrt(np.square(gap[0]) + np.square(gap[1])))
    components = {"distance": -distance, "effort": -0.02 * float(np.sum(np.square(action)))}
    return sum(components.values()), components
