"""Hand-written pool entry, label: good. Staged: far from the tilt, pump the pole's energy towards what the top needs;
near it (within 0.6 rad), the angle error and speed costs take over, with a bonus inside the success band."""

import math

TARGET = 0.3


def compute_reward(state, action, next_state):
    cos_theta, sin_theta, theta_dot = (float(v) for v in next_state.obs[:3])
    theta = math.atan2(sin_theta, cos_theta)
    error = math.atan2(math.sin(theta - TARGET), math.cos(theta - TARGET))
    energy = 0.5 * theta_dot**2 / 3.0 + 5.0 * (cos_theta - 1.0)  # 0 at rest upright, about -10 hanging at rest
    near = abs(error) < 0.6
    components = {
        "energy_gap": 0.0 if near else -0.1 * abs(energy),
        "angle": -(error**2) if near else -1.0,
        "speed": -0.1 * theta_dot**2 if near else 0.0,
        "in_band": 1.0 if abs(error) < 0.15 else 0.0,
    }
    return sum(components.values()), components
