"""Hand-written pool entry, label: good. The repair of the slow entry: the busy work removed, alive plus
uprightness kept."""

import numpy as np


def compute_reward(state, action, next_state):
    angles = np.array([next_state.joint("hinge").qpos, next_state.joint("hinge2").qpos], dtype=float)
    components = {"alive": 1.0, "upright": -0.5 * float(np.sum(np.square(angles)))}
    return sum(components.values()), components
