# task: inverted-double-pendulum-balance
import numpy as np


def compute_reward(state, action, next_state):
    ups = []
    for name in ("pole", "pole2"):
        ups.append(float(next_state.body(name).xmat[2, 2]))
    i, bonus = 0, 0.0
    while i < len(ups):
        bonus += 0.5 if ups[i] > 0.9 else 0.0
        i += 1
    effort = -0.1 * float(np.abs(action).sum())
    return sum(ups) + bonus + effort, {"upright": sum(ups), "bonus": bonus, "effort": effort}
