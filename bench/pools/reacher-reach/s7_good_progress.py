"""Hand-written pool entry, label: good. Minus the distance plus its decrease per second (progress towards the
target), a small effort cost."""

import numpy as np


def compute_reward(state, action, next_state):
    before = np.linalg.norm(state.body("fingertip").pos[:2] - state.body("target").pos[:2])
    after = np.linalg.norm(next_state.body("fingertip").pos[:2] - next_state.body("target").pos[:2])
    components = {
        "distance": -float(after),
        "progress": 0.1 * float(before - after) / next_state.dt,
        "effort": -0.05 * float(np.sum(np.square(action))),
    }
    return sum(components.values()), components
