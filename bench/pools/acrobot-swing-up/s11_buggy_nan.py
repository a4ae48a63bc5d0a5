"""Hand-written pool entry, label: buggy. The square root of the free end's height: NaN whenever the end is below the
pivot (most of the time), which the critic rejects."""

import numpy as np


def compute_reward(state, action, next_state):
    cos1, sin1, cos2, sin2 = (float(v) for v in next_state.obs[:4])
    height = -cos1 - (cos1 * cos2 - sin1 * sin2)
    components = {
        "time": -1.0,
        "height": 0.5 * float(np.sqrt(height)),
    }
    return sum(components.values()), components
