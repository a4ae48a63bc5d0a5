# task: reacher-reach
import numpy as np


def _dist(s) -> float:
    return float(np.linalg.norm(s.obs[8:10]))


def compute_reward(state, action, next_state):
    progress = (_dist(state) - _dist(next_state)) / next_state.dt
    close = float(np.exp(-_dist(next_state) / 0.05))
    return progress + close, {"progress": progress, "close": close}
