"""Hand-written pool entry, label: good. A time cost softened near the flag (exponential closeness, never above the
cost, so finishing sooner always pays), plus a bonus at the flag."""

import math


def compute_reward(state, action, next_state):
    gap = max(0.0, 0.5 - float(next_state.obs[0]))
    components = {
        "time": -1.0,
        "closeness": 0.9 * math.exp(-5.0 * gap),
        "flag": 10.0 if gap == 0.0 else 0.0,
    }
    return sum(components.values()), components
