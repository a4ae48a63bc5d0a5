"""Hand-written pool entry, label: good. Distance plus a bonus that grows sharply near the target."""

import math

import numpy as np


def compute_reward(state, action, next_state):
    gap = next_state.body("fingertip").pos[:2] - next_state.body("target").pos[:2]
    distance = float(np.linalg.norm(gap))
    components = {"distance": -distance, "near": 0.5 * math.exp(-distance / 0.05)}
    return sum(components.values()), components
