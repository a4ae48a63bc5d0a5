"""Example reward for `mountaincar-discrete-reach-flag`: build momentum (energy), then reach the flag.

Standalone: numpy and math only, `compute_reward(state, action, next_state) -> (float, dict)`.
"""

import math


def _energy(obs):
    """Kinetic plus potential energy of the car, each in [0, 1]."""
    position, velocity = float(obs[0]), float(obs[1])
    return 0.5 * (velocity / 0.07) ** 2 + 0.5 * (math.sin(3.0 * position) + 1.0)


def compute_reward(state, action, next_state):
    components = {
        "energy_gain": 10.0 * (_energy(next_state.obs) - _energy(state.obs)),  # potential-based: no reward for idling
        "flag": 10.0 if float(next_state.obs[0]) >= 0.5 else 0.0,
    }
    return sum(components.values()), components
