# attack: return NaN total and an inf component
# gate: pass
# critic: contract
# train: rejected
# expect: passes the gate; contained: harmless here, the critic rejects non-finite values
def compute_reward(state, action, next_state):
    return float("nan"), {"speed": float("inf")}
