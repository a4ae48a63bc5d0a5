"""Hand-written pool entry, label: good. The car's mechanical energy (kinetic plus the track's potential) as a
potential: each step pays the energy gained, so swinging back to build momentum pays too, plus the flag bonus."""

import math

import numpy as np

GRAVITY = 0.0025  # the track's gravity term: velocity -= GRAVITY * cos(3 x) per step
ENERGY_SCALE = 1000.0
FLAG_BONUS = 100.0
EFFORT_WEIGHT = 0.1


def energy(obs):
    position, velocity = float(obs[0]), float(obs[1])
    return 0.5 * velocity * velocity + GRAVITY / 3.0 * math.sin(3.0 * position)


def compute_reward(state, action, next_state):
    components = {
        "energy_gain": ENERGY_SCALE * (energy(next_state.obs) - energy(state.obs)),
        "flag": FLAG_BONUS if float(next_state.obs[0]) >= 0.45 else 0.0,
        "effort": -EFFORT_WEIGHT * float(np.sum(np.square(action))),
    }
    return sum(components.values()), components
