"""Hand-written pool entry, label: slow. A "repair" of s6_slow that is still too slow: the busy loop is kept, so it
is rejected again."""

import math

import numpy as np


def compute_reward(state, action, next_state):
    spin = 0.0
    for k in range(70_000):  # deliberate busy work: about 10 ms per call, far over the critic budget
        spin += math.sin(k * 1e-3)
    theta_dot = float(next_state.obs[2])
    components = {
        "forward_speed": float(np.clip(theta_dot, 0.0, 8.0)) / 8.0,
        "backward": -0.2 * max(-theta_dot, 0.0) / 8.0,
        "effort": -0.001 * float(np.sum(np.square(action))),
        "spin": 0.0 * spin,
    }
    return sum(components.values()), components
