# task: lunarlander-land
import numpy as np


def compute_reward(state, action, next_state):
    target = next_state.goal if hasattr(next_state, "goal") and next_state.goal is not None else np.zeros(2)
    position = np.asarray(next_state.obs[:2])
    distance = float(np.linalg.norm(position - target))
    upright = float(np.cos(next_state.obs[4]))
    touching = float(next_state.obs[6] + next_state.obs[7]) / 2.0
    parts = {"distance": -distance, "upright": 0.1 * upright, "touching": 0.2 * touching}
    return float(np.sum(list(parts.values()))), parts
