"""Hand-written pool entry, label: weak. Aims at a point 0.1 m above the goal, meant to keep the fingers clear of
the table on the way in (a pre-grasp pose borrowed from pick-and-place): the distance falls fast at first, but the
gripper settles 0.1 m over the goal, twice the success radius."""

import numpy as np

HOVER_HEIGHT = 0.1  # m above the goal


def compute_reward(state, action, next_state):
    aim = next_state.goal + np.array([0.0, 0.0, HOVER_HEIGHT])
    distance = float(np.linalg.norm(next_state.achieved_goal - aim))
    components = {
        "to_hover": -distance,
        "effort": -0.01 * float(np.sum(np.square(action[:3]))),
    }
    return sum(components.values()), components
