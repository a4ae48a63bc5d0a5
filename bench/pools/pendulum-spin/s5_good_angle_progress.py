"""Hand-written pool entry, label: good. The progress of the unwrapped angle: the wrapped change in theta between
`state` and `next_state`, recovered with atan2 from (cos, sin), divided by dt, so positive turning is paid directly."""

import math


def compute_reward(state, action, next_state):
    theta0 = math.atan2(float(state.obs[1]), float(state.obs[0]))
    theta1 = math.atan2(float(next_state.obs[1]), float(next_state.obs[0]))
    delta = math.atan2(math.sin(theta1 - theta0), math.cos(theta1 - theta0))
    components = {
        "progress": 0.25 * delta / state.dt,
        "effort": -0.005 * float(action[0]) ** 2,
    }
    return sum(components.values()), components
