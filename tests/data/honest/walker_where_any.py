# task: walker2d-walk
import numpy as np


def compute_reward(state, action, next_state):
    q = np.asarray(next_state.qvel[3:])
    wild = np.where(np.abs(q) > 8.0, 1.0, 0.0)
    calm = 0.0 if np.any(wild) else 0.2
    finite = bool(np.all(np.isfinite(next_state.obs)))
    forward = float(next_state.qvel[0]) if finite else 0.0
    return forward + calm, {"forward": forward, "calm": calm}
