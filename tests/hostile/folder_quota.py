# attack: fill the disk through many files, each under RLIMIT_FSIZE (4 x 500 MiB was accepted before)
# gate: reject
# critic: worker
# train: rejected
# expect: rejected by ast-gate (import os); the supervisor's folder quota kills the worker and rejects it
import os
import time

CHUNK = b"\xa5" * (1 << 20)


def compute_reward(state, action, next_state):
    for index in range(5):
        with open(f"fill-{index}.bin", "wb") as f:
            for _ in range(25):
                f.write(CHUNK)
            f.flush()
            os.fsync(f.fileno())
    time.sleep(30)
    return 0.0, {}
