"""Hand-written pool entry, label: good. The repair of the NaN: the height as (1 + cos theta) / 2 squared, defined
everywhere and steeper near the top, under the same speed and torque costs."""

import numpy as np


def compute_reward(state, action, next_state):
    height = 0.5 * (float(next_state.obs[0]) + 1.0)
    components = {
        "height": 2.0 * height**2,
        "speed": -0.1 * height * float(next_state.obs[2]) ** 2,
        "effort": -0.001 * float(np.sum(np.square(action))),
    }
    return sum(components.values()), components
