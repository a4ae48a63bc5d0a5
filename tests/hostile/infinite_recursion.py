# attack: recurse without end
# gate: pass
# critic: exception
# train: rejected
# expect: passes the gate; contained: RecursionError
def deeper(n):
    return deeper(n + 1) + 1


def compute_reward(state, action, next_state):
    return float(deeper(0)), {}
