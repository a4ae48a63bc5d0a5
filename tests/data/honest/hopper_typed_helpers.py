# task: hopper-hop
# ruff: noqa: UP006, UP035
"""Hop forward: type hints, small helpers, a module constant computed by a helper."""

from __future__ import annotations

from typing import Dict, Tuple

import numpy as np


def _band(centre: float, width: float) -> Tuple[float, float]:
    return centre - width / 2.0, centre + width / 2.0


HEALTHY_Z = _band(1.2, 0.8)
FORWARD_WEIGHT: float = 1.0


def _healthy(z: float) -> float:
    low, high = HEALTHY_Z
    return 1.0 if low <= z <= high else 0.0


def compute_reward(state, action: np.ndarray, next_state) -> Tuple[float, Dict[str, float]]:
    dx = next_state.body("torso").pos[0] - state.body("torso").pos[0]
    forward = FORWARD_WEIGHT * float(dx) / next_state.dt
    alive = _healthy(float(next_state.body("torso").pos[2]))
    effort = -1e-3 * float(np.sum(np.square(action)))
    return forward + alive + effort, {"forward": forward, "alive": alive, "effort": effort}
