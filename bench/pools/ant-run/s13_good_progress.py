"""Hand-written pool entry, label: good. A progress reward: the per-second rise of a potential, the torso's x minus
half its drift off the x axis, paid while upright, a small upright bonus and effort cost."""

import math

import numpy as np

LATERAL = 0.5  # potential lost per metre off the x axis
UPRIGHT = 0.25
EFFORT = 0.05


def potential(s):
    pos = s.body("torso").pos
    return float(pos[0]) - LATERAL * abs(float(pos[1]))


def compute_reward(state, action, next_state):
    torso = next_state.body("torso")
    upright = 0.2 <= float(torso.pos[2]) <= 1.0 and float(torso.xmat[2, 2]) >= math.cos(1.0)
    progress = (potential(next_state) - potential(state)) / next_state.dt
    components = {
        "progress": progress if upright else min(progress, 0.0),
        "upright": UPRIGHT if upright else 0.0,
        "effort": -EFFORT * float(np.sum(np.square(action))),
    }
    return sum(components.values()), components
