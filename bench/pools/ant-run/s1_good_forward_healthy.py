"""Hand-written pool entry, label: good. Gymnasium's Ant recipe: the root's velocity along +x, a healthy bonus while
the torso is 0.2-1.0 m high and tilted at most 1 rad, a control cost of 0.1 per unit squared action."""

import math

import numpy as np

HEALTHY = 1.0
CONTROL = 0.1


def compute_reward(state, action, next_state):
    torso = next_state.body("torso")
    healthy = 0.2 <= float(torso.pos[2]) <= 1.0 and float(torso.xmat[2, 2]) >= math.cos(1.0)
    components = {
        "forward": float(next_state.qvel[0]),
        "healthy": HEALTHY if healthy else 0.0,
        "control": -CONTROL * float(np.sum(np.square(action))),
    }
    return sum(components.values()), components
