# task: halfcheetah-run
# ruff: noqa: UP006, UP035, UP045
from __future__ import annotations

from typing import Dict, List, Optional, Tuple

import numpy as np

Components = Dict[str, float]


def _weighted(values: List[float], weights: Optional[List[float]] = None) -> float:
    weights = weights or [1.0] * len(values)
    return float(sum(w * v for w, v in zip(weights, values)))


def compute_reward(state, action, next_state) -> Tuple[float, Components]:
    velocity = float(next_state.obs[8])
    effort = float(np.square(action).sum())
    total = _weighted([velocity, -effort], [1.0, 0.1])
    return total, {"velocity": velocity, "effort": -0.1 * effort}
