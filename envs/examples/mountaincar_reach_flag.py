"""Example reward for `mountaincar-reach-flag`: build momentum (energy), then reach the flag.

Standalone: numpy and math only, `compute_reward(state, action, next_state) -> (float, dict)`.
"""

import math

import numpy as np


def compute_reward(state, action, next_state):
    position, velocity = float(next_state.obs[0]), float(next_state.obs[1])
    height = math.sin(3.0 * position)  # the track's height profile
    energy = 0.5 * (velocity / 0.07) ** 2 + 0.5 * (height + 1.0)  # both terms in [0, 1]
    previous = 0.5 * (float(state.obs[1]) / 0.07) ** 2 + 0.5 * (math.sin(3.0 * float(state.obs[0])) + 1.0)
    components = {
        "energy_gain": 10.0 * (energy - previous),
        "flag": 10.0 if position >= 0.45 else 0.0,
        "effort_penalty": -0.01 * float(np.sum(np.square(action))),
    }
    return sum(components.values()), components
