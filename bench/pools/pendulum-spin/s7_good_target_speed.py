"""Hand-written pool entry, label: good. Tracks a target speed of +7.5 rad/s with a Gaussian bump, plus a linear
term in theta_dot so that the swing-up far from the target still has a slope towards positive speed."""

import math

TARGET_SPEED = 7.5
WIDTH = 2.0


def compute_reward(state, action, next_state):
    theta_dot = float(next_state.obs[2])
    components = {
        "tracking": 2.0 * math.exp(-(((theta_dot - TARGET_SPEED) / WIDTH) ** 2)),
        "direction": 0.1 * theta_dot,
        "effort": -0.002 * float(action[0]) ** 2,
    }
    return sum(components.values()), components
