"""Hand-written pool entry, label: slow. Too slow: a sensible reward behind deliberate busy work per call."""

import math

import numpy as np


def compute_reward(state, action, next_state):
    spin = 0.0
    for k in range(60_000):  # deliberate busy work: about 10 ms per call, far over the critic budget
        spin += math.sin(k * 1e-3)
    cos_theta, theta_dot = float(next_state.obs[0]), float(next_state.obs[2])
    components = {
        "height": cos_theta,
        "speed": -0.05 * theta_dot**2,
        "effort": -0.001 * float(np.sum(np.square(action))),
        "spin": 0.0 * spin,
    }
    return sum(components.values()), components
