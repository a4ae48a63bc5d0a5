# attack: busy loop that swallows BaseException and ignores SIGALRM/SIGTERM
# gate: reject
# critic: killed
# train: killed
# expect: rejected by ast-gate; contained: SIGKILL on wall timeout (cannot be caught)
import signal

signal.signal(signal.SIGALRM, signal.SIG_IGN)
signal.signal(signal.SIGTERM, signal.SIG_IGN)


def compute_reward(state, action, next_state):
    while True:
        try:
            while True:
                pass
        except BaseException:
            continue
