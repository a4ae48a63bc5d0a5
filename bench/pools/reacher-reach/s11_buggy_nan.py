"""Hand-written pool entry, label: buggy. Takes the square root of a signed coordinate instead of the squared
distance: NaN on every state with the fingertip left of the target, which the critic rejects."""

import numpy as np


def compute_reward(state, action, next_state):
    gap = next_state.body("fingertip").pos[:2] - next_state.body("target").pos[:2]
    distance = float(np.sqrt(gap[0]) + np.square(gap[1]))
    components = {"distance": -distance}
    return sum(components.values()), components
