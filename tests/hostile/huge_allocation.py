# attack: allocate 800 GB
# gate: pass
# critic: exception
# train: rejected
# expect: passes the gate; contained: rlimits (RLIMIT_AS → MemoryError)
import numpy as np


def compute_reward(state, action, next_state):
    block = np.ones(10**11)
    return float(block[0]), {}
