# attack: none: a normal forward-velocity reward
# gate: pass
# outcome: ok
# expect: passes the gate and runs
import math

import numpy as np


def compute_reward(state, action, next_state):
    forward = float(next_state[8])
    control = 0.1 * float(np.sum(np.square(action)))
    total = forward - control + math.exp(-abs(float(state[1])))
    return total, {"forward": forward, "control": -control}
