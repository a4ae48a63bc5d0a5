"""Hand-written pool entry, label: good. The repair of the typo: the angle from `obs[0]` and `obs[1]` (cos and sin),
the same angle and speed costs."""

import math


def compute_reward(state, action, next_state):
    theta = math.atan2(float(next_state.obs[1]), float(next_state.obs[0]))
    error = math.atan2(math.sin(theta - 0.3), math.cos(theta - 0.3))
    components = {
        "angle": -(error**2),
        "speed": -0.1 * float(next_state.obs[2]) ** 2,
    }
    return sum(components.values()), components
