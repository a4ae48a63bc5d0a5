# attack: np.recarray (the ndarray constructor again: buf, offset, strides) over a foreign buffer, read and write
# gate: reject
# critic: killed
# train: killed
# expect: rejected by ast-gate (np.recarray, strides=); gate off it runs: the read lands on an unmapped page and
# expect: the worker dies alone, reported 'crashed with SIGSEGV'
import numpy as np


def compute_reward(state, action, next_state):
    base = np.zeros(2)
    view = np.recarray((5,), dtype=np.float64, buf=base, strides=(1 << 62,))  # the extent overflows to 0
    stolen = float(view[1])
    view[1] = 1e9
    return stolen, {"stolen": stolen}
