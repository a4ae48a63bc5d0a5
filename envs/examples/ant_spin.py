"""Example reward for `ant-spin`: turn about the vertical axis, right side up and near the start.

Rewards the torso's yaw rate (its world angular velocity about z, counter-clockwise seen from above: one
direction, so that rocking back and forth cannot earn anything; capped, since a faster "turn" is a tumble),
counted only while upright (0.2 to 1.0 m high, tilted at most 1.0 rad) and within 1 m of the start (the reset
pose is at the origin); a healthy bonus, a bounded penalty for drifting away from the origin, and a control cost.
Episodes end when the ant is unhealthy, so an upright step is worth more than every penalty together (at least
+0.45): the policy gains by staying up, never by ending the episode.
Standalone: numpy and math only, `compute_reward(state, action, next_state) -> (float, dict)`.
"""

import math

import numpy as np

YAW_CAP = 6.0  # rad/s: the most yaw rate that pays
HEALTHY = 1.0  # per upright step
DRIFT_SCALE = 0.5  # per metre beyond 0.5 m from the start, at most 1 m of it
EFFORT_SCALE = 0.05  # on the mean squared action (each action in [-1, 1])


def compute_reward(state, action, next_state):
    torso = next_state.body("torso")
    yaw_rate = float(np.clip(torso.angvel[2], -YAW_CAP, YAW_CAP))
    drift = float(np.linalg.norm(torso.pos[:2]))
    upright = 0.2 <= float(torso.pos[2]) <= 1.0 and float(torso.xmat[2, 2]) >= math.cos(1.0)
    counts = upright and drift <= 1.0
    components = {
        "yaw_rate": yaw_rate if counts else 0.0,
        "healthy": HEALTHY if upright else 0.0,
        "drift_penalty": -DRIFT_SCALE * min(max(drift - 0.5, 0.0), 1.0),
        "effort_penalty": -EFFORT_SCALE * float(np.mean(np.square(action))),
    }
    return sum(components.values()), components
