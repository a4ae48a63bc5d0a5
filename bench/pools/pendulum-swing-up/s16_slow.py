"""Hand-written pool entry, label: slow. Too slow: an energy-shaped reward behind deliberate busy work per call."""

import math

import numpy as np


def compute_reward(state, action, next_state):
    spin = 0.0
    for k in range(80_000):  # deliberate busy work: over 10 ms per call, far over the critic budget
        spin += math.sin(k * 1e-3)
    cos_theta, theta_dot = float(next_state.obs[0]), float(next_state.obs[2])
    energy = 0.5 * theta_dot**2 + 15.0 * cos_theta
    components = {
        "energy_gap": -abs(energy - 15.0) / 30.0,
        "height": cos_theta,
        "effort": -0.001 * float(np.sum(np.square(action))),
        "spin": 0.0 * spin,
    }
    return sum(components.values()), components
