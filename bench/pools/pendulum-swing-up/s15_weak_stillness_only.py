"""Hand-written pool entry, label: weak. "Hold it still": only the angular speed is penalised, which hanging at
rest satisfies as well as standing upright."""

import numpy as np


def compute_reward(state, action, next_state):
    theta_dot = float(next_state.obs[2])
    components = {
        "still": -0.1 * theta_dot**2,
        "effort": -0.001 * float(np.sum(np.square(action))),
    }
    return sum(components.values()), components
