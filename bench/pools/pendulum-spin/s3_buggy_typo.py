"""Hand-written pool entry, label: buggy. Reads `next_state.theta` and `state.theta`, attributes the state does not
have (only `obs`), so every call raises AttributeError."""

import math


def compute_reward(state, action, next_state):
    delta = next_state.theta - state.theta
    delta = math.atan2(math.sin(delta), math.cos(delta))  # wrap the step's change to (-pi, pi]
    components = {
        "progress": delta / state.dt,
        "effort": -0.01 * float(action[0]) ** 2,
    }
    return sum(components.values()), components
