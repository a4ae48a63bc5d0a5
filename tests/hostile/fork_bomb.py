# attack: fork in a loop
# gate: reject
# critic: exception
# train: rejected
# expect: rejected by ast-gate; contained: seccomp (fork/clone EPERM)
import os


def compute_reward(state, action, next_state):
    while True:
        os.fork()
