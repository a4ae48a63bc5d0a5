"""Hand-written pool entry, label: good. The repair of the typo: `obs`, the kinetic energy gained as the
momentum term, and the flag bonus."""

import numpy as np

SPEED_SCALE = 100.0
FLAG_BONUS = 100.0


def compute_reward(state, action, next_state):
    kinetic_gain = float(next_state.obs[1]) ** 2 - float(state.obs[1]) ** 2
    components = {
        "kinetic_gain": SPEED_SCALE * kinetic_gain / 0.0049,
        "flag": FLAG_BONUS if float(next_state.obs[0]) >= 0.45 else 0.0,
        "effort": -0.1 * float(np.sum(np.square(action))),
    }
    return sum(components.values()), components
