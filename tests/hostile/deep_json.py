# attack: crash the parent's JSON parser: "[" * 500000 as summary.json and error.json, then exit 0
# gate: reject
# critic: worker
# train: rejected
# expect: rejected by ast-gate (import os); contained: worker JSON is parsed with a nesting limit, every error caught
import os


def compute_reward(state, action, next_state):
    for name in ("summary.json", "error.json", "smoke.json"):
        with open(name, "w") as f:
            f.write("[" * 500_000)
    os._exit(0)
