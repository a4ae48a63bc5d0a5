# attack: PTRACE_ATTACH to the parent through ctypes
# gate: reject
# critic: exception
# train: rejected
# expect: rejected by ast-gate; contained: seccomp (ptrace EPERM)
import ctypes
import os


def compute_reward(state, action, next_state):
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.ptrace(16, os.getppid(), 0, 0) != 0:  # PTRACE_ATTACH
        raise PermissionError(ctypes.get_errno(), "ptrace failed")
    return 0.0, {}
