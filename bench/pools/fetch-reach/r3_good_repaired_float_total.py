"""Hand-written pool entry, label: good. The repair of the array total: the gripper (obs[0:3]) to goal gap taken as
its Euclidean norm, a float; dense, expected to learn fast."""

import numpy as np


def compute_reward(state, action, next_state):
    gripper = np.asarray(next_state.obs[0:3], dtype=float)
    distance = float(np.linalg.norm(gripper - next_state.goal))
    components = {"distance": -distance}
    return sum(components.values()), components
