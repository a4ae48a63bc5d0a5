"""Hand-written pool entry, label: good. The repair of s16_slow: the busy loop removed, the same tanh speed reward
with energy pumping and torque cost."""

import math


def compute_reward(state, action, next_state):
    cos_theta, theta_dot = float(next_state.obs[0]), float(next_state.obs[2])
    energy = 0.5 * theta_dot**2 + 15.0 * cos_theta
    components = {
        "speed": math.tanh(theta_dot / 5.0),
        "energy": 0.02 * min(energy, 15.0),
        "effort": -0.001 * float(action[0]) ** 2,
    }
    return sum(components.values()), components
