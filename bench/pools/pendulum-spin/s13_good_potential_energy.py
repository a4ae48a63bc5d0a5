"""Hand-written pool entry, label: good. Potential-based shaping on the mechanical energy (gamma * phi(s') - phi(s))
to guide the pumping, plus a direction term tanh(theta_dot / 4) that pays turning the positive way."""

import math

import numpy as np

GAMMA = 0.99


def _potential(obs):
    cos_theta, theta_dot = float(obs[0]), float(obs[2])
    energy = 0.5 * theta_dot**2 + 15.0 * cos_theta
    return min(energy, 25.0) / 10.0  # saturate once there is plenty to clear the top


def compute_reward(state, action, next_state):
    components = {
        "shaping": GAMMA * _potential(next_state.obs) - _potential(state.obs),
        "direction": math.tanh(float(next_state.obs[2]) / 4.0),
        "effort": -0.001 * float(np.sum(np.square(action))),
    }
    return sum(components.values()), components
