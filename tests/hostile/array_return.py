# attack: return an array instead of a float
# gate: pass
# critic: contract
# train: rejected
# expect: passes the gate; the critic rejects the shape
def compute_reward(state, action, next_state):
    return next_state.obs * 2.0, {"raw": action}
