"""Dropping every Linux capability of the calling thread (for root workers that keep uid 0)."""

from __future__ import annotations

import ctypes
import os

_LINUX_CAPABILITY_VERSION_3 = 0x20080522
_PR_CAPBSET_DROP = 24
_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL = 47, 4
_CAP_LAST = 63


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


def drop_all() -> None:
    """Empty the bounding, ambient, effective, permitted and inheritable sets of this thread.

    Without CAP_SYS_PTRACE and CAP_DAC_OVERRIDE, uid 0 can no longer read other processes'
    /proc/<pid>/environ or memory, nor files it does not own. Threads started later inherit this.
    """
    libc = ctypes.CDLL(None, use_errno=True)
    for cap in range(_CAP_LAST + 1):
        if libc.prctl(_PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 and ctypes.get_errno() != 22:
            raise OSError(ctypes.get_errno(), f"PR_CAPBSET_DROP {cap}")  # EINVAL: no such cap
    if libc.prctl(_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "PR_CAP_AMBIENT_CLEAR_ALL")
    header = _CapHeader(_LINUX_CAPABILITY_VERSION_3, 0)
    data = (_CapData * 2)()
    if libc.capset(ctypes.byref(header), data) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"capset: {os.strerror(err)}")
