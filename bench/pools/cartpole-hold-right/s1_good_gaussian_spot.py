"""Hand-written pool entry, label: good. Survival plus a wide Gaussian bump centred on the spot, so the pull towards
x = +1.0 is felt from the centre of the track, and a small cost on the pole's tilt."""

import math

SPOT = 1.0


def compute_reward(state, action, next_state):
    x, angle = float(next_state.obs[0]), float(next_state.obs[2])
    components = {
        "alive": 1.0,
        "spot": 2.0 * math.exp(-(((x - SPOT) / 0.6) ** 2)),
        "tilt": -0.5 * abs(angle),
    }
    return sum(components.values()), components
