# attack: return an array instead of a float
# gate: pass
# outcome: ok
# expect: passes the gate; the critic rejects the shape
import numpy as np


def compute_reward(state, action, next_state):
    return np.asarray(next_state) * 2.0, {"raw": np.asarray(action)}
