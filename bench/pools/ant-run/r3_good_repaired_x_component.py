"""Hand-written pool entry, label: good. The repair of the vector total: the velocity's x component taken as a
float."""

import math

import numpy as np


def compute_reward(state, action, next_state):
    torso = next_state.body("torso")
    velocity = float(torso.pos[0] - state.body("torso").pos[0]) / next_state.dt
    healthy = 0.2 <= float(torso.pos[2]) <= 1.0 and float(torso.xmat[2, 2]) >= math.cos(1.0)
    components = {
        "forward": velocity,
        "healthy": 1.0 if healthy else 0.0,
        "effort": -0.1 * float(np.sum(np.square(action))),
    }
    return sum(components.values()), components
