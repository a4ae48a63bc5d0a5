"""Hand-written pool entry, label: good. Minus the fingertip-target distance, a small effort cost."""

import numpy as np


def compute_reward(state, action, next_state):
    gap = next_state.body("fingertip").pos[:2] - next_state.body("target").pos[:2]
    components = {"distance": -float(np.linalg.norm(gap)), "effort": -0.1 * float(np.sum(np.square(action)))}
    return sum(components.values()), components
