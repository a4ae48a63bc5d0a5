"""Example reward for `walker2d-walk`: walk forward fast while staying upright, without wasting effort.

Gymnasium's Walker2d recipe: forward velocity of the torso, a bonus for every healthy step (torso
0.8 to 2.0 m high, pitch within 1.0 rad: the env's own fall rule) and a small control cost. The
velocity counts only while healthy, so diving forward into a fall earns nothing.
Standalone: numpy and math only, `compute_reward(state, action, next_state) -> (float, dict)`.
"""

import numpy as np


def compute_reward(state, action, next_state):
    torso = next_state.body("torso")
    forward_velocity = float(torso.pos[0] - state.body("torso").pos[0]) / next_state.dt
    healthy = 0.8 <= float(torso.pos[2]) <= 2.0 and abs(float(next_state.joint("rooty").qpos)) <= 1.0
    components = {
        "forward_velocity": forward_velocity if healthy else 0.0,
        "healthy": 1.0 if healthy else 0.0,
        "effort_penalty": -1e-3 * float(np.sum(np.square(action))),
    }
    return sum(components.values()), components
