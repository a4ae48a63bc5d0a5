"""Example reward for `pusher-push`: reach the object with the arm's tip, then push it onto the goal.

Gymnasium's Pusher recipe: minus the object-goal distance (xy, weight 1), minus the tip-object distance
(weight 0.5, to get the arm to the object first) and a control cost, plus a bonus on the steps where
the object is within 0.05 m of the goal (the task's success radius).
Standalone: numpy and math only, `compute_reward(state, action, next_state) -> (float, dict)`.
"""

import numpy as np


def compute_reward(state, action, next_state):
    tip, block, goal = (next_state.body(name).pos for name in ("tips_arm", "object", "goal"))
    to_object = float(np.linalg.norm(tip - block))
    to_goal = float(np.linalg.norm(block[:2] - goal[:2]))
    components = {
        "object_to_goal": -to_goal,
        "tip_to_object": -0.5 * to_object,
        "on_goal": 0.5 if to_goal < 0.05 else 0.0,
        "effort_penalty": -0.1 * float(np.sum(np.square(action))),
    }
    return sum(components.values()), components
