"""Hand-written pool entry, label: buggy. Forgets to index the velocity's x component: the forward term and so the
total are 3-vectors, not floats, and the critic rejects the contract violation and asks for a repair."""

import numpy as np


def compute_reward(state, action, next_state):
    velocity = (next_state.body("torso").pos - state.body("torso").pos) / next_state.dt
    components = {"forward": velocity, "healthy": 1.0, "effort": -0.1 * float(np.sum(np.square(action)))}
    return sum(components.values()), components
