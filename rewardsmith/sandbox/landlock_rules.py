"""Landlock through raw syscalls: read-only below given roots, read-write below one folder.

Raw ctypes rather than the `landlock` PyPI package: the package (1.0.0.dev5) knows filesystem
rights only, while this also handles TCP rights (ABI 4) and signal/abstract-socket scoping (ABI 6).
"""

from __future__ import annotations

import ctypes
import os
from collections.abc import Sequence
from pathlib import Path

_SYS_CREATE_RULESET, _SYS_ADD_RULE, _SYS_RESTRICT_SELF = 444, 445, 446  # same on x86_64, arm64
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH = 1
_PR_SET_NO_NEW_PRIVS = 38

EXECUTE, WRITE_FILE, READ_FILE, READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
REFER, TRUNCATE, IOCTL_DEV = 1 << 13, 1 << 14, 1 << 15
_FILE_RIGHTS = EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE | IOCTL_DEV
_NET_BIND_TCP, _NET_CONNECT_TCP = 1 << 0, 1 << 1
_SCOPE_ABSTRACT_UNIX_SOCKET, _SCOPE_SIGNAL = 1 << 0, 1 << 1


class _RulesetAttr(ctypes.Structure):
    _fields_ = [
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),
        ("scoped", ctypes.c_uint64),
    ]


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long


def _syscall(*args: object) -> int:
    result = _libc.syscall(*args)
    if result < 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))
    return result


def abi_version() -> int:
    """The kernel's Landlock ABI version; raises OSError when Landlock is unavailable."""
    return _syscall(
        ctypes.c_long(_SYS_CREATE_RULESET), None, ctypes.c_size_t(0), ctypes.c_uint32(_CREATE_RULESET_VERSION)
    )


def _handled_fs(abi: int) -> int:
    rights = (1 << 13) - 1  # ABI 1: EXECUTE .. MAKE_SYM
    if abi >= 2:
        rights |= REFER
    if abi >= 3:
        rights |= TRUNCATE
    if abi >= 5:
        rights |= IOCTL_DEV
    return rights


def restrict(read_roots: list[Path], writable: Path, *, block_tcp: bool, devices: Sequence[Path] = ()) -> str:
    """Confine the calling thread (and threads it starts later); return a short description.

    Reads are allowed below `read_roots`, everything below `writable` and writes to /dev/null; `devices` (a GPU
    worker's driver files) may be read, written and sent device ioctls;
    nothing may be executed. With ABI >= 4 and `block_tcp`, TCP bind/connect are denied; with
    ABI >= 6, signals and abstract unix sockets cannot reach processes outside the sandbox.
    """
    abi = abi_version()
    handled = _handled_fs(abi)
    attr = _RulesetAttr(
        handled,
        _NET_BIND_TCP | _NET_CONNECT_TCP if abi >= 4 and block_tcp else 0,
        _SCOPE_ABSTRACT_UNIX_SOCKET | _SCOPE_SIGNAL if abi >= 6 else 0,
    )
    size = 8 if abi < 4 else 16 if abi < 6 else 24
    fd = _syscall(ctypes.c_long(_SYS_CREATE_RULESET), ctypes.byref(attr), ctypes.c_size_t(size), ctypes.c_uint32(0))
    try:
        for root in read_roots:
            _allow(fd, root, READ_FILE | READ_DIR)
        _allow(fd, writable, handled & ~EXECUTE)
        _allow(fd, Path("/dev/null"), (READ_FILE | WRITE_FILE | TRUNCATE) & handled)
        for device in devices:
            _allow(fd, device, (READ_FILE | WRITE_FILE | IOCTL_DEV) & handled)
        if _libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS) failed")
        _syscall(ctypes.c_long(_SYS_RESTRICT_SELF), ctypes.c_int(fd), ctypes.c_uint32(0))
    finally:
        os.close(fd)
    extras = (["tcp"] if abi >= 4 and block_tcp else []) + (["signal-scope"] if abi >= 6 else [])
    extras += [f"{len(devices)} GPU device files read-write"] if devices else []
    return f"ABI {abi}" + (f" + {', '.join(extras)}" if extras else "")


def _allow(ruleset_fd: int, path: Path, rights: int) -> None:
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except FileNotFoundError:
        return
    try:
        if not os.path.isdir(path):
            rights &= _FILE_RIGHTS
        rule = _PathBeneathAttr(rights, fd)
        _syscall(
            ctypes.c_long(_SYS_ADD_RULE),
            ctypes.c_int(ruleset_fd),
            ctypes.c_int(_RULE_PATH_BENEATH),
            ctypes.byref(rule),
            ctypes.c_uint32(0),
        )
    finally:
        os.close(fd)
