# attack: re-enable writes on the state array, then mutate it
# gate: reject
# outcome: raised
# expect: rejected by ast-gate (setflags); contained: numpy refuses on a non-owning view
def compute_reward(state, action, next_state):
    state.setflags(write=True)
    state[0] = 1e9
    return 0.0, {}
