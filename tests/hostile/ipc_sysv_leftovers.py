# attack: make a SysV shared memory segment and message queue that outlive the worker
# gate: reject
# critic: exception
# train: rejected
# expect: rejected by ast-gate; contained: seccomp (shmget/msgget EPERM) and the worker's own IPC namespace (objects
# die with it); the corpus checks that no object with these keys is left on the host
import ctypes

SHM_KEY, MSG_KEY = 0x52534831, 0x52534832  # tests/test_sandbox_hostile.py looks for these keys


def compute_reward(state, action, next_state):
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.shmget(SHM_KEY, 4096, 0o1666) < 0:
        raise PermissionError(f"shmget: errno {ctypes.get_errno()}")
    if libc.msgget(MSG_KEY, 0o1666) < 0:
        raise PermissionError(f"msgget: errno {ctypes.get_errno()}")
    return 0.0, {}
