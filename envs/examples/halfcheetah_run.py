"""Example reward for `halfcheetah-run`: run forward (towards +x) fast, back up, without wasting effort.

Gymnasium's HalfCheetah recipe: velocity of the torso along +x and a control cost. Running on its back is a known
shortcut for this model (trained without a guard, the cheetah flipped on 2 of 3 seeds by 200,000 steps, and the
task does not count it), so the velocity counts only while the torso is tilted less than 1.2 rad (the task's limit
is 1.4), and a flipped torso costs a fixed penalty.
Standalone: numpy and math only, `compute_reward(state, action, next_state) -> (float, dict)`.
"""

import math

import numpy as np


def compute_reward(state, action, next_state):
    torso = next_state.body("torso")
    forward_velocity = float(torso.pos[0] - state.body("torso").pos[0]) / next_state.dt
    flipped = float(torso.xmat[2, 2]) < math.cos(1.2)
    components = {
        "forward_velocity": 0.0 if flipped else forward_velocity,
        "flipped": -1.0 if flipped else 0.0,
        "effort_penalty": -0.1 * float(np.sum(np.square(action))),
    }
    return sum(components.values()), components
