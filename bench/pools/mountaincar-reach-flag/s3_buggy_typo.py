"""Hand-written pool entry, label: buggy. A misspelt attribute (`ob` for `obs`): the critic rejects it and asks
for a repair."""

import numpy as np

SPEED_SCALE = 100.0
FLAG_BONUS = 100.0


def compute_reward(state, action, next_state):
    kinetic_gain = float(next_state.ob[1]) ** 2 - float(state.ob[1]) ** 2
    components = {
        "kinetic_gain": SPEED_SCALE * kinetic_gain / 0.0049,
        "flag": FLAG_BONUS if float(next_state.obs[0]) >= 0.45 else 0.0,
        "effort": -0.1 * float(np.sum(np.square(action))),
    }
    return sum(components.values()), components
