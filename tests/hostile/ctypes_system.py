# attack: call libc system() through ctypes
# gate: reject
# critic: exception
# train: rejected
# expect: rejected by ast-gate; contained: seccomp
import ctypes


def compute_reward(state, action, next_state):
    libc = ctypes.CDLL(None)
    if libc.system(b"touch /tmp/rewardsmith-hostile-escape") != 0:
        raise PermissionError("system() failed")
    return 0.0, {}
