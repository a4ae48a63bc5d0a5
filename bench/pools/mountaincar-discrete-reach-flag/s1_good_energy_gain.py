"""Hand-written pool entry, label: good. The car's mechanical energy (kinetic plus the track's potential) as a
potential: each step pays the energy gained, so pushing against the motion to swing higher pays too, plus a flag
bonus and a small cost for each push."""

import math

GRAVITY = 0.0025  # MountainCar-v0: velocity += (action - 1) * 0.001 - 0.0025 * cos(3 x) per step
ENERGY_SCALE = 1000.0
FLAG_BONUS = 100.0


def energy(obs):
    position, velocity = float(obs[0]), float(obs[1])
    return 0.5 * velocity * velocity + GRAVITY / 3.0 * math.sin(3.0 * position)


def compute_reward(state, action, next_state):
    components = {
        "energy_gain": ENERGY_SCALE * (energy(next_state.obs) - energy(state.obs)),
        "flag": FLAG_BONUS if float(next_state.obs[0]) >= 0.5 else 0.0,
        "push_cost": -0.01 if int(action) != 1 else 0.0,
    }
    return sum(components.values()), components
