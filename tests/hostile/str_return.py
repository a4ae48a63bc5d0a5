# attack: return a string instead of a number
# gate: pass
# critic: contract
# train: rejected
# expect: passes the gate; the critic rejects the type
def compute_reward(state, action, next_state):
    return "lots of reward", {}
