"""Hand-written pool entry, label: good. The repair of the slow entry: the busy work removed, the closeness score,
the pull and the effort cost kept; dense, expected to learn fast."""

import math

import numpy as np

CLOSE_TEMP = 0.02  # m
CLOSE_WEIGHT = 0.5
EFFORT_WEIGHT = 0.02


def compute_reward(state, action, next_state):
    distance = float(np.linalg.norm(next_state.achieved_goal - next_state.goal))
    components = {
        "closeness": CLOSE_WEIGHT * math.exp(-distance / CLOSE_TEMP),
        "pull": -distance,
        "effort": -EFFORT_WEIGHT * float(np.sum(np.square(action[:3]))),
    }
    return sum(components.values()), components
