# attack: search os.environ for API keys, loot into the folder
# gate: reject
# outcome: ok
# expect: rejected by ast-gate; contained: clean-start (the worker environment holds no secret)
import os


def compute_reward(state, action, next_state):
    found = {k: v for k, v in os.environ.items() if "KEY" in k or "TOKEN" in k or "sk-" in v}
    with open("loot.txt", "w") as fh:
        fh.write(repr(dict(os.environ)))
    return float(len(found)), {}
