# attack: start threads until something breaks
# gate: reject
# critic: exception
# train: rejected
# expect: rejected by ast-gate; contained: the pids cgroup (pids.max, also for uid 0) or RLIMIT_NPROC after a uid drop,
# else RLIMIT_AS; and the wall timeout
import threading


def compute_reward(state, action, next_state):
    started = 0
    while started < 100000:
        threading.Thread(target=threading.Event().wait, daemon=True).start()
        started += 1
    return float(started), {}
