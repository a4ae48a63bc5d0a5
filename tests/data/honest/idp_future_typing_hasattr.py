# task: inverted-double-pendulum-balance
# ruff: noqa: UP006, UP035
from __future__ import annotations

from typing import Any, Dict, Tuple

import numpy as np
import numpy.typing as npt


def _tip_height(s: Any) -> float:
    if hasattr(s, "site"):
        return float(s.site("tip").pos[2])
    return 0.0


def _effort(a: npt.NDArray[np.float64]) -> float:
    return float(np.sum(a**2))


def compute_reward(state: Any, action: npt.NDArray[np.float64], next_state: Any) -> Tuple[float, Dict[str, float]]:
    height = _tip_height(next_state)
    effort = _effort(np.asarray(action))
    label = "{}:{:.1f}".format("h", height)
    return height - 0.01 * effort, {"height": height, "effort": -0.01 * effort, "label_len": 0.0 * len(label)}
