"""Hand-written pool entry, label: good. Minus the gripper-goal distance (the fitness's own quantity, paid every
step) and a small cost on the xyz displacement command: dense and well scaled, expected to learn fast."""

import numpy as np

EFFORT_WEIGHT = 0.01


def compute_reward(state, action, next_state):
    distance = float(np.linalg.norm(next_state.achieved_goal - next_state.goal))
    components = {
        "distance": -distance,
        "effort": -EFFORT_WEIGHT * float(np.sum(np.square(action[:3]))),
    }
    return sum(components.values()), components
