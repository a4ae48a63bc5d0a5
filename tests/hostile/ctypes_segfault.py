# attack: dereference an unmapped address through ctypes
# gate: reject
# critic: killed
# train: killed
# expect: rejected by ast-gate; contained: the worker dies alone, reported 'crashed with SIGSEGV'
import ctypes


def compute_reward(state, action, next_state):
    return float(ctypes.c_char.from_address(0xDEADBEEF000).value[0]), {}
