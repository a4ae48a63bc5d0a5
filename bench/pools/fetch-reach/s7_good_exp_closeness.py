"""Hand-written pool entry, label: good. A bounded closeness score exp(-distance / 0.05), sharp inside the success
radius, plus a linear pull for when the goal is far: dense, expected to learn fast and to settle close."""

import math

import numpy as np

CLOSE_TEMP = 0.05  # m
PULL_WEIGHT = 0.5


def compute_reward(state, action, next_state):
    distance = float(np.linalg.norm(next_state.achieved_goal - next_state.goal))
    components = {
        "closeness": math.exp(-distance / CLOSE_TEMP),
        "pull": -PULL_WEIGHT * distance,
    }
    return sum(components.values()), components
