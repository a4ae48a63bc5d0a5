"""Hand-written pool entry, label: good. Backward displacement per step, counted only while the torso is tilted
less than 1 rad, a small effort cost."""

import numpy as np


def compute_reward(state, action, next_state):
    moved = float(next_state.body("torso").pos[0] - state.body("torso").pos[0])
    upright = float(next_state.body("torso").xmat[2, 2]) > float(np.cos(1.0))
    components = {
        "backward": (-moved / next_state.dt) if upright else -1.0,
        "effort": -0.05 * float(np.sum(np.square(action))),
    }
    return sum(components.values()), components
