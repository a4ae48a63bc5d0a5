"""Hand-written pool entry, label: weak. A large survival bonus with the spot term scaled so small that it barely
changes what the policy is paid for."""

import math


def compute_reward(state, action, next_state):
    distance = abs(float(next_state.obs[0]) - 1.0)
    components = {
        "alive": 10.0,
        "spot": 0.05 * math.exp(-distance),
    }
    return sum(components.values()), components
