"""Example reward for `walker2d-one-leg`: stand still on one foot with the other lifted, torso upright.

While the torso is upright (at least 1.0 m high, tilted at most 0.5 rad): a bonus for being upright,
shaping that lifts the higher foot towards 0.15 m while the lower one stays on the ground (at most
0.05 m), and a bonus on the steps where both hold. Horizontal torso speed is penalised so hopping and
walking lose, and a small control cost keeps the pose cheap. Either foot may stand.
Standalone: numpy and math only, `compute_reward(state, action, next_state) -> (float, dict)`.
"""

import math

import numpy as np


def compute_reward(state, action, next_state):
    torso = next_state.body("torso")
    upright = float(torso.pos[2]) >= 1.0 and float(torso.xmat[2, 2]) >= math.cos(0.5)
    low, high = sorted(float(next_state.body(foot).pos[2]) for foot in ("foot", "foot_left"))
    grounded = low <= 0.05
    lifted = high >= 0.15
    speed = float(np.linalg.norm(torso.linvel[:2]))
    components = {
        "upright": 1.0 if upright else 0.0,
        "lift_other_foot": min(max(high, 0.0) / 0.15, 1.0) if upright and grounded else 0.0,
        "on_one_leg": 2.0 if upright and grounded and lifted else 0.0,
        "speed_penalty": -1.0 * speed,
        "effort_penalty": -1e-3 * float(np.sum(np.square(action))),
    }
    return sum(components.values()), components
