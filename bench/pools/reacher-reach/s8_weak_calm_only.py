"""Hand-written pool entry, label: weak. Only penalises the joints' speed: the arm learns to hold still wherever it
starts, target or not."""

import numpy as np


def compute_reward(state, action, next_state):
    speeds = np.array([next_state.joint("joint0").qvel, next_state.joint("joint1").qvel], dtype=float)
    components = {"calm": -0.1 * float(np.sum(np.square(speeds)))}
    return sum(components.values()), components
