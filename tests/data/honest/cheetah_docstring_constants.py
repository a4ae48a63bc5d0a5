# task: halfcheetah-run
"""Reward for running forward.

Terms:
    forward: the torso's x velocity (m/s)
    smooth: a penalty on the change of the action
"""

import numpy as np

DT_SCALE = 1.0
SMOOTH_WEIGHT = 0.01
_CACHE_SIZE = 3


def compute_reward(state, action, next_state):
    """Forward speed minus a small effort term."""
    forward = DT_SCALE * float(next_state.body("torso").linvel[0])
    smooth = -SMOOTH_WEIGHT * float(np.sum(np.square(np.diff(action))))
    return forward + smooth, {"forward": forward, "smooth": smooth, "cache": 0.0 * _CACHE_SIZE}
