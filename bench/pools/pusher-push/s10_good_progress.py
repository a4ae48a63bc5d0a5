"""Hand-written pool entry, label: good. Potential-based progress: the decrease of the object-goal distance per
second, plus a reach term bringing the fingertip to the object and a small effort cost."""

import numpy as np

PROGRESS_WEIGHT = 1.0
REACH_WEIGHT = 0.5
EFFORT_WEIGHT = 0.05


def goal_distance(snapshot):
    return float(np.linalg.norm(snapshot.body("object").pos[:2] - snapshot.body("goal").pos[:2]))


def compute_reward(state, action, next_state):
    progress = (goal_distance(state) - goal_distance(next_state)) / next_state.dt
    reach = float(np.linalg.norm(next_state.body("tips_arm").pos - next_state.body("object").pos))
    components = {
        "progress": PROGRESS_WEIGHT * progress,
        "reach": -REACH_WEIGHT * reach,
        "effort": -EFFORT_WEIGHT * float(np.sum(np.square(action))),
    }
    return sum(components.values()), components
