"""Hand-written pool entry, label: weak. The forward velocity scaled down 100x under a healthy bonus of 1: the ant
is paid almost only for not falling and learns to stand."""

import math

import numpy as np


def compute_reward(state, action, next_state):
    torso = next_state.body("torso")
    healthy = 0.2 <= float(torso.pos[2]) <= 1.0 and float(torso.xmat[2, 2]) >= math.cos(1.0)
    components = {
        "forward": 0.01 * float(torso.linvel[0]),
        "healthy": 1.0 if healthy else 0.0,
        "control": -0.005 * float(np.sum(np.square(action))),
    }
    return sum(components.values()), components
