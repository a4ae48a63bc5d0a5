# attack: spawn a shell through subprocess
# gate: reject
# critic: exception
# train: rejected
# expect: rejected by ast-gate; contained: seccomp (fork/vfork/execve/clone EPERM)
import subprocess


def compute_reward(state, action, next_state):
    subprocess.run(["sh", "-c", "echo pwned > /tmp/rewardsmith-hostile-escape"], check=True)
    return 0.0, {}
