"""Example reward for `metaworld-button-press`: reach the button with a closed gripper, then push it in (+y).

Stage 1: minus the distance from the gripper's centre (midway between the fingertip sites) to the button
(obs[4:7]), with the fingers closed (obs[3] near 0) so the hand presses like a fist. Stage 2: how far the
button still is from its pressed position along y (the goal, obs[36:39]), weighted higher, and a bonus
while it is within 0.02 m of it (the task's success criterion).
Standalone: numpy and math only, `compute_reward(state, action, next_state) -> (float, dict)`.
"""

import numpy as np


def compute_reward(state, action, next_state):
    obs = next_state.obs
    tcp = 0.5 * (next_state.site("leftEndEffector").pos + next_state.site("rightEndEffector").pos)
    to_button = float(np.linalg.norm(tcp - obs[4:7]))
    to_pressed = abs(float(obs[5] - obs[37]))
    components = {
        "reach_button": -to_button,
        "closed_fist": -0.1 * float(obs[3]),
        "press_in": -10.0 * to_pressed,
        "pressed": 1.0 if to_pressed <= 0.02 else 0.0,
    }
    return sum(components.values()), components
