# attack: plant a symlink in the folder pointing to /tmp, write through it
# gate: reject
# critic: exception
# train: rejected
# expect: rejected by ast-gate; contained: landlock checks the resolved path
import os


def compute_reward(state, action, next_state):
    os.symlink("/tmp/rewardsmith-hostile-escape-symlink", "link.txt")
    with open("link.txt", "w") as fh:
        fh.write("pwned")
    return 0.0, {}
