"""Example reward for `ant-spin`: turn about the vertical axis, right side up and near the start.

Rewards the yaw rate of the torso (counter-clockwise seen from above: one direction, so that rocking
back and forth cannot earn anything), counted only while upright (tilt at most 1.0 rad) and within 1 m
of the start (the reset pose is at the origin); a healthy bonus, a penalty for drifting away from the
origin, and a control cost.
Standalone: numpy and math only, `compute_reward(state, action, next_state) -> (float, dict)`.
"""

import math

import numpy as np


def heading(state):
    """Yaw (rad) of the torso's x axis in the world xy-plane."""
    w, x, y, z = state.body("torso").quat
    return math.atan2(2.0 * (w * z + x * y), 1.0 - 2.0 * (y * y + z * z))


def compute_reward(state, action, next_state):
    torso = next_state.body("torso")
    turn = (heading(next_state) - heading(state) + math.pi) % (2.0 * math.pi) - math.pi
    yaw_rate = turn / next_state.dt
    drift = float(np.linalg.norm(torso.pos[:2]))
    upright = 0.2 <= float(torso.pos[2]) <= 1.0 and float(torso.xmat[2, 2]) >= math.cos(1.0)
    counts = upright and drift <= 1.0
    components = {
        "yaw_rate": yaw_rate if counts else 0.0,
        "healthy": 0.5 if upright else 0.0,
        "drift_penalty": -1.0 * max(drift - 0.5, 0.0),
        "effort_penalty": -0.1 * float(np.sum(np.square(action))),
    }
    return sum(components.values()), components
