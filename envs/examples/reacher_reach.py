"""Example reward for `reacher-reach`: bring the fingertip to the target and keep it there.

Gymnasium's Reacher recipe: minus the fingertip-target distance (xy) and a control cost, plus a bonus
on the steps where the fingertip is within 0.02 m of the target (the task's success radius).
Standalone: numpy and math only, `compute_reward(state, action, next_state) -> (float, dict)`.
"""

import numpy as np


def compute_reward(state, action, next_state):
    gap = next_state.body("fingertip").pos[:2] - next_state.body("target").pos[:2]
    distance = float(np.linalg.norm(gap))
    components = {
        "distance_penalty": -distance,
        "on_target": 0.1 if distance < 0.02 else 0.0,
        "effort_penalty": -0.1 * float(np.sum(np.square(action))),
    }
    return sum(components.values()), components
