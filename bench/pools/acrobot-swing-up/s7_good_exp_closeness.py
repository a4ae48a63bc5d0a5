"""Hand-written pool entry, label: good. A time cost, softened by an exponential closeness of the free end to the
bar, which sharpens near the top; the total stays below 0, so finishing sooner always pays."""

import math

TEMPERATURE = 0.5
CLOSENESS_WEIGHT = 0.5


def compute_reward(state, action, next_state):
    cos1, sin1, cos2, sin2 = (float(v) for v in next_state.obs[:4])
    height = -cos1 - (cos1 * cos2 - sin1 * sin2)
    gap = max(0.0, 1.0 - height)  # 0 at the bar, 3 hanging
    components = {
        "time": -1.0,
        "closeness": CLOSENESS_WEIGHT * math.exp(-gap / TEMPERATURE),
    }
    return sum(components.values()), components
