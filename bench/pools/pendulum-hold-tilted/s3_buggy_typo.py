"""Hand-written pool entry, label: buggy. A State attribute that does not exist (`theta`): the critic rejects it
and asks for a repair."""

import math


def compute_reward(state, action, next_state):
    error = math.atan2(math.sin(next_state.theta - 0.3), math.cos(next_state.theta - 0.3))
    components = {
        "angle": -(error**2),
        "speed": -0.1 * float(next_state.obs[2]) ** 2,
    }
    return sum(components.values()), components
