"""Example reward for `adroit-door`: reach the handle, turn the latch, then swing the door open and hold it.

Standalone: numpy and math only, `compute_reward(state, action, next_state) -> (float, dict)`.
"""

import numpy as np


def compute_reward(state, action, next_state):
    palm, handle = next_state.site("S_grasp").pos, next_state.site("S_handle").pos
    reach = float(np.linalg.norm(palm - handle))
    latch = float(next_state.joint("latch").qpos)  # the handle turned (rad, 0 to 1.8)
    hinge = float(next_state.joint("door_hinge").qpos)  # the door swung open (rad, 0 to 1.57)
    components = {
        "reach_handle": -reach,
        "turn_latch": 0.5 * min(latch, 1.0),
        "open_door": 2.0 * hinge,
        "door_open": 2.0 if hinge >= 1.35 else 0.0,
        "effort_penalty": -0.01 * float(np.sum(np.square(action))),
    }
    return sum(components.values()), components
