# attack: print 5 MB to stdout (1 MB on each of the first five calls; the log cap is 1 MB)
# gate: reject
# critic: accepted
# train: accepted
# expect: rejected by ast-gate (print); contained: launch caps the log at output_cap_bytes
FLOODED = []


def compute_reward(state, action, next_state):
    if len(FLOODED) < 5:  # bounded, so the calls stay within the critic's time budget
        print("A" * 1_000_000)
        FLOODED.append(1)
    return 0.0, {}
