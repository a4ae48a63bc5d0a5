# task: hopper-hop
from typing import Any

import numpy as np


def _velocity(s: Any) -> float:
    if hasattr(s, "qvel") and len(s.qvel) > 0:
        return float(s.qvel[0])
    return float(s.obs[5])


def compute_reward(state: Any, action: Any, next_state: Any):
    v = _velocity(next_state)
    hop = max(0.0, float(next_state.body("foot").pos[2]) - 0.1)
    penalty = 0.001 * float(np.linalg.norm(action)) ** 2
    return v + hop - penalty, {"velocity": v, "hop": hop, "penalty": -penalty}
