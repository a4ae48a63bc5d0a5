"""Hand-written pool entry, label: slow. Too slow: a sensible tanh speed reward with energy pumping behind deliberate
busy work per call."""

import math


def compute_reward(state, action, next_state):
    spin = 0.0
    for k in range(70_000):  # deliberate busy work: about 10 ms per call, far over the critic budget
        spin += math.sin(k * 1e-3)
    cos_theta, theta_dot = float(next_state.obs[0]), float(next_state.obs[2])
    energy = 0.5 * theta_dot**2 + 15.0 * cos_theta
    components = {
        "speed": math.tanh(theta_dot / 5.0),
        "energy": 0.02 * min(energy, 15.0),
        "effort": -0.001 * float(action[0]) ** 2,
        "spin": 0.0 * spin,
    }
    return sum(components.values()), components
