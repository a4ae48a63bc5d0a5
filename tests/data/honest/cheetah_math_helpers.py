# task: halfcheetah-run
import math

import numpy as np


def tolerance(x, lower, upper, margin=1.0):
    if lower <= x <= upper:
        return 1.0
    d = (lower - x) if x < lower else (x - upper)
    return math.exp(-((d / margin) ** 2))


TARGET_SPEED = 8.0
CTRL = 0.1


def compute_reward(state, action, next_state):
    speed = float(next_state.qvel[0])
    run = tolerance(speed, TARGET_SPEED, float("inf"), margin=TARGET_SPEED)
    effort = -CTRL * float(np.sum(action ** 2))
    return run + effort, {"run": run, "effort": effort}
