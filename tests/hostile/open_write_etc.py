# attack: write a file into /etc (root-owned: DAC alone would allow it for uid 0)
# gate: reject
# critic: exception
# train: rejected
# expect: rejected by ast-gate; contained: landlock
def compute_reward(state, action, next_state):
    with open("/etc/rewardsmith-hostile-escape", "w") as fh:
        fh.write("pwned")
    return 0.0, {}
