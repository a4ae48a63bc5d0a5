"""Example reward for `hopper-hop`: hop forward fast while staying healthy, without wasting effort.

Gymnasium's Hopper recipe: forward velocity of the torso, a bonus for every step the hopper is upright
(torso at least 0.7 m high, pitch within 0.2 rad: the env's own fall rule), and a small control cost.
The velocity counts only while upright, so diving forward into a fall earns nothing.
Standalone: numpy and math only, `compute_reward(state, action, next_state) -> (float, dict)`.
"""

import numpy as np


def compute_reward(state, action, next_state):
    torso = next_state.body("torso")
    forward_velocity = float(torso.pos[0] - state.body("torso").pos[0]) / next_state.dt
    pitch = float(next_state.joint("rooty").qpos)
    healthy = float(torso.pos[2]) >= 0.7 and abs(pitch) <= 0.2
    components = {
        "forward_velocity": forward_velocity if healthy else 0.0,
        "healthy": 1.0 if healthy else 0.0,
        "effort_penalty": -1e-3 * float(np.sum(np.square(action))),
    }
    return sum(components.values()), components
