# attack: write into the read-only state arrays
# gate: pass
# critic: exception
# train: rejected
# expect: passes the gate (item assignment is legal); contained: read-only arrays raise ValueError
def compute_reward(state, action, next_state):
    state.obs[0] = 1e9
    next_state.qpos[:] = 0.0
    return 0.0, {}
