"""Hand-written pool entry, label: good. Minus the fingertip-target gap as the observation lists it (obs[8:10]),
the joints slowed near the target."""

import numpy as np


def compute_reward(state, action, next_state):
    distance = float(np.linalg.norm(next_state.obs[8:10]))
    speeds = np.asarray(next_state.qvel[:2], dtype=float)
    components = {
        "distance": -distance,
        "settle": -0.01 * float(np.sum(np.square(speeds))) * (1.0 if distance < 0.05 else 0.0),
    }
    return sum(components.values()), components
