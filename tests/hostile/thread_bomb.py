# attack: start threads until something breaks
# gate: reject
# critic: exception
# train: rejected
# expect: rejected by ast-gate; contained: rlimits (RLIMIT_AS/NPROC stop thread creation) and the wall timeout
import threading


def compute_reward(state, action, next_state):
    started = 0
    while started < 100000:
        threading.Thread(target=threading.Event().wait, daemon=True).start()
        started += 1
    return float(started), {}
