# attack: legal but slow: a pure-python busy loop of ~100 ms per call
# gate: pass
# critic: too-slow
# train: killed
# expect: passes the gate; the critic's per-call budget flags it; training dies at the CPU limit
def compute_reward(state, action, next_state):
    total = 0.0
    for i in range(1_500_000):
        total += (i % 7) * 1e-9
    return float(total), {"busy": total}
