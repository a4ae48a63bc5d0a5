# attack: burn time inside numpy C code (big matmuls in a loop)
# gate: pass
# critic: killed
# train: killed
# expect: passes the gate; contained: wall timeout
import numpy as np


def compute_reward(state, action, next_state):
    big = np.ones((1500, 1500))
    while True:
        big = np.dot(big, big) * 0.0 + 1.0
