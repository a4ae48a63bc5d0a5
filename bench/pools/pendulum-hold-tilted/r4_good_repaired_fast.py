"""Hand-written pool entry, label: good. The slow staged reward without its busy work: the absolute angle error and
speed, and a bonus inside the success band."""

import math


def compute_reward(state, action, next_state):
    theta = math.atan2(float(next_state.obs[1]), float(next_state.obs[0]))
    error = math.atan2(math.sin(theta - 0.3), math.cos(theta - 0.3))
    components = {
        "angle": -abs(error),
        "speed": -0.05 * abs(float(next_state.obs[2])),
        "in_band": 0.5 if abs(error) < 0.15 else 0.0,
    }
    return sum(components.values()), components
