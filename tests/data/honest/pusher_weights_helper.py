# task: pusher-push
from __future__ import annotations

import math

import numpy as np


def _normalised(*weights: float) -> list[float]:
    total = sum(weights)
    return [w / total for w in weights]


W_REACH, W_PUSH, W_CTRL = _normalised(0.5, 1.0, 0.1)


def compute_reward(state, action, next_state):
    tip, obj, goal = (next_state.body(n).pos for n in ("tips_arm", "object", "goal"))
    reach = -float(np.linalg.norm(tip - obj))
    push = -float(np.linalg.norm(obj - goal))
    ctrl = -float(np.square(action).sum())
    parts = {"reach": W_REACH * reach, "push": W_PUSH * push, "ctrl": W_CTRL * ctrl}
    return math.fsum(parts.values()), parts
