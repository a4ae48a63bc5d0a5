"""Hand-written pool entry, label: weak. Only penalises the hinges' angular speed: calm poles are needed to
balance, but nothing here pays for staying up, so ending the episode early costs nothing."""

import numpy as np


def compute_reward(state, action, next_state):
    hinge_speeds = np.asarray(next_state.qvel[1:3], dtype=float)
    components = {"calm": -0.1 * float(np.sum(np.square(hinge_speeds)))}
    return sum(components.values()), components
