# attack: open a file in /tmp for writing
# gate: reject
# critic: exception
# train: rejected
# expect: rejected by ast-gate (open); contained: landlock
def compute_reward(state, action, next_state):
    with open("/tmp/rewardsmith-hostile-escape", "w") as fh:
        fh.write("pwned")
    return 0.0, {}
