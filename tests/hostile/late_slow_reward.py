# attack: cheap while the critic measures it, then slow: ~0.3 s per call from the 1,001st call on
# gate: pass
# critic: accepted
# train: accepted
# expect: the critic sees a cheap reward; a training job given the per-call budget (reward_budget_s, 10x the
# critic's median) stops it early with "got too slow" (tests/test_evaluation.py) instead of running to the wall
# limit; this corpus's 256-step training stays under 1,000 calls, so it is accepted here
calls = [0]


def compute_reward(state, action, next_state):
    calls[0] += 1
    total = 0.0
    if calls[0] > 1000:
        for i in range(4_000_000):
            total += (i % 7) * 1e-12
    return 1.0 + total, {"alive": 1.0}
