"""Example reward for `metaworld-window-open`: reach the window's handle, then slide it open (+x) to the goal.

Stage 1: minus the distance from the gripper's centre (midway between the fingertip sites) to the handle
(obs[4:7]). Stage 2: minus the handle's distance to the goal along x (obs[36]), weighted higher, since the
task counts the window as open within 0.05 m of the goal along x; a bonus while it is.
Standalone: numpy and math only, `compute_reward(state, action, next_state) -> (float, dict)`.
"""

import numpy as np


def compute_reward(state, action, next_state):
    obs = next_state.obs
    tcp = 0.5 * (next_state.site("leftEndEffector").pos + next_state.site("rightEndEffector").pos)
    to_handle = float(np.linalg.norm(tcp - obs[4:7]))
    to_open = abs(float(obs[4] - obs[36]))
    components = {
        "reach_handle": -to_handle,
        "slide_open": -5.0 * to_open,
        "window_open": 1.0 if to_open <= 0.05 else 0.0,
    }
    return sum(components.values()), components
