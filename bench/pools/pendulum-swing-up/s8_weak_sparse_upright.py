"""Hand-written pool entry, label: weak. Sparse: 1 only within 0.1 rad of upright, nothing to guide the swing-up
from below."""

import math


def compute_reward(state, action, next_state):
    theta = math.atan2(float(next_state.obs[1]), float(next_state.obs[0]))
    components = {"upright": 1.0 if abs(theta) < 0.1 else 0.0}
    return sum(components.values()), components
