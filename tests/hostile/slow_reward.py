# attack: legal but slow: a pure-python busy loop of ~50 ms per call
# gate: pass
# outcome: ok
# expect: passes the gate; runs to completion; the critic's per-call budget must flag it
def compute_reward(state, action, next_state):
    total = 0.0
    for i in range(600_000):
        total += (i % 7) * 1e-9
    return float(total), {"busy": total}
