"""Example reward for `shadowhand-block-rotate-z`: turn the block to the goal orientation without dropping it.

Standalone: numpy and math only, `compute_reward(state, action, next_state) -> (float, dict)`.
The block's pose is `achieved_goal` (xyz, then a (w, x, y, z) quaternion), the goal's is `goal`.
"""

import math

import numpy as np


def rotation_angle(q1, q2):
    """The angle (rad, 0 to pi) of the rotation between two unit quaternions."""
    dot = abs(float(np.dot(q1, q2))) / max(float(np.linalg.norm(q1) * np.linalg.norm(q2)), 1e-9)
    return 2.0 * math.acos(min(1.0, dot))


def compute_reward(state, action, next_state):
    before = rotation_angle(state.achieved_goal[3:7], state.goal[3:7])
    after = rotation_angle(next_state.achieved_goal[3:7], next_state.goal[3:7])
    dropped = float(next_state.achieved_goal[2]) < 0.04
    components = {
        "orientation_error": -after,
        "turned_towards_goal": 5.0 * (before - after),
        "aligned": 1.0 if after < 0.1 else 0.0,
        "dropped": -5.0 if dropped else 0.0,
        "effort_penalty": -0.01 * float(np.sum(np.square(action))),
    }
    return sum(components.values()), components
