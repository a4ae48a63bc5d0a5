"""Hand-written pool entry, label: buggy. Diminishing returns on speed via np.sqrt(theta_dot): NaN whenever the pole
swings the negative way, about half of all swing-up steps, which the critic rejects."""

import numpy as np


def compute_reward(state, action, next_state):
    theta_dot = float(next_state.obs[2])
    components = {
        "speed": float(np.sqrt(theta_dot / 8.0)),
        "effort": -0.001 * float(np.sum(np.square(action))),
    }
    return sum(components.values()), components
