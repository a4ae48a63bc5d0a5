"""Hand-written pool entry, label: good. Potential-based progress towards the tilt (gamma x Phi(s') - Phi(s), Phi the
negative absolute wrapped error), plus a bonus and a stillness cost inside the success band."""

import math

GAMMA = 0.9


def error_of(obs):
    theta = math.atan2(float(obs[1]), float(obs[0]))
    return abs(math.atan2(math.sin(theta - 0.3), math.cos(theta - 0.3)))


def compute_reward(state, action, next_state):
    before, after = error_of(state.obs), error_of(next_state.obs)
    in_band = after < 0.15
    components = {
        "progress": 5.0 * (GAMMA * -after - -before),
        "in_band": 1.0 if in_band else 0.0,
        "still": -0.1 * float(next_state.obs[2]) ** 2 if in_band else 0.0,
    }
    return sum(components.values()), components
