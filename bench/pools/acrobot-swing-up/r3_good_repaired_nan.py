"""Hand-written pool entry, label: good. The repair of the NaN: the square root of the height's fraction of the way
from hanging to the bar, defined everywhere and steeper low down, under the same time cost."""

import numpy as np


def compute_reward(state, action, next_state):
    cos1, sin1, cos2, sin2 = (float(v) for v in next_state.obs[:4])
    height = -cos1 - (cos1 * cos2 - sin1 * sin2)
    fraction = float(np.clip((height + 2.0) / 3.0, 0.0, 1.0))
    components = {
        "time": -1.0,
        "height": 0.5 * float(np.sqrt(fraction)),
    }
    return sum(components.values()), components
