# attack: print 100 MB to stdout
# gate: reject
# outcome: ok
# expect: rejected by ast-gate (print); contained: launch caps the log at output_cap_bytes
def compute_reward(state, action, next_state):
    line = "A" * 1_000_000
    for _ in range(100):
        print(line)
    return 0.0, {}
