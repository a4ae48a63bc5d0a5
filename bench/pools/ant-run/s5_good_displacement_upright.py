"""Hand-written pool entry, label: good. Torso displacement along +x per second, counted only while the torso's up
axis is within 1 rad of vertical (a penalty otherwise), a small effort cost."""

import math

import numpy as np

TILT_PENALTY = 1.0
EFFORT = 0.05


def compute_reward(state, action, next_state):
    torso = next_state.body("torso")
    moved = float(torso.pos[0] - state.body("torso").pos[0])
    up_axis = torso.xmat[:, 2]  # the torso's up axis in the world frame
    upright = float(up_axis[2]) >= math.cos(1.0)
    components = {
        "forward": moved / next_state.dt if upright else -TILT_PENALTY,
        "effort": -EFFORT * float(np.sum(np.square(action))),
    }
    return sum(components.values()), components
