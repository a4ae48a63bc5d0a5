# attack: run a shell command with os.system
# gate: reject
# critic: exception
# train: rejected
# expect: rejected by ast-gate; contained: seccomp (fork/execve EPERM) and landlock
import os


def compute_reward(state, action, next_state):
    code = os.system("echo pwned > /tmp/rewardsmith-hostile-escape")
    if code != 0:
        raise PermissionError(f"os.system returned {code}")
    return 0.0, {}
