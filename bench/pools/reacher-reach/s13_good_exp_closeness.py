"""Hand-written pool entry, label: good. A bounded closeness score exp(-distance / 0.1) plus a linear pull for when
the target is far."""

import math

import numpy as np


def compute_reward(state, action, next_state):
    gap = next_state.body("fingertip").pos[:2] - next_state.body("target").pos[:2]
    distance = float(np.linalg.norm(gap))
    components = {"closeness": math.exp(-distance / 0.1), "pull": -0.5 * distance}
    return sum(components.values()), components
