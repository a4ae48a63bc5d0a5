# attack: none: a normal forward-velocity reward
# gate: pass
# critic: accepted
# train: accepted
# expect: passes the gate and runs
import math

import numpy as np


def compute_reward(state, action, next_state):
    forward = float(next_state.obs[1] - state.obs[1]) / next_state.dt
    control = 0.1 * float(np.sum(np.square(action)))
    total = forward - control + math.exp(-abs(float(state.obs[0])))
    return total, {"forward": forward, "control": -control}
