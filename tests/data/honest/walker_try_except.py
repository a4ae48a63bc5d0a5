# task: walker2d-walk
import math

import numpy as np


def safe_ratio(a: float, b: float) -> float:
    try:
        return a / b
    except ZeroDivisionError:
        return 0.0


def compute_reward(state, action, next_state):
    dx = float(next_state.qpos[0] - state.qpos[0])
    speed = safe_ratio(dx, next_state.dt)
    tilt = math.cos(float(next_state.qpos[2]))
    effort = float(np.sum(np.abs(action)))
    parts = {"speed": speed, "tilt": tilt, "effort": -0.01 * effort}
    total = round(sum(parts.values()), 6)
    return total, parts
