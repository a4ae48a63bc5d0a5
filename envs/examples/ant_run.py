"""Example reward for `ant-run`: run forward fast, right side up, without wasting effort or hitting hard.

Gymnasium's Ant recipe: forward velocity of the torso along +x, a bonus for every healthy step (torso
0.2 to 1.0 m high and tilted at most 1.0 rad), a control cost and a small cost on the external contact
forces (the clipped `cfrc_ext` in obs[27:105]).
Standalone: numpy and math only, `compute_reward(state, action, next_state) -> (float, dict)`.
"""

import math

import numpy as np


def compute_reward(state, action, next_state):
    torso = next_state.body("torso")
    forward_velocity = float(torso.pos[0] - state.body("torso").pos[0]) / next_state.dt
    height = float(torso.pos[2])
    healthy = 0.2 <= height <= 1.0 and float(torso.xmat[2, 2]) >= math.cos(1.0)
    components = {
        "forward_velocity": forward_velocity,
        "healthy": 1.0 if healthy else 0.0,
        "effort_penalty": -0.5 * float(np.sum(np.square(action))),
        "contact_penalty": -5e-4 * float(np.sum(np.square(next_state.obs[27:105]))),
    }
    return sum(components.values()), components
