"""The seccomp filter: allow by default, deny with EPERM what a reward process never needs.

Threads keep working: clone with CLONE_THREAD is allowed, clone3 answers ENOSYS so glibc falls
back to clone (clone3 passes its flags in memory, which seccomp cannot inspect).
"""

from __future__ import annotations

import errno
import os

try:  # imported now: lazy imports may be impossible once the process is locked down
    import pyseccomp as sc
except (ImportError, RuntimeError) as exc:  # RuntimeError: libseccomp not found
    sc = None
    _IMPORT_ERROR = f"{type(exc).__name__}: {exc}"

_CLONE_THREAD = 0x00010000
_TIOCSTI = 0x5412

DENIED = (
    # new programs and processes
    "execve",
    "execveat",
    "fork",
    "vfork",
    # other processes' memory and privileges
    "ptrace",
    "process_vm_readv",
    "process_vm_writev",
    "pidfd_open",
    "pidfd_getfd",
    "pidfd_send_signal",
    "tkill",
    # namespaces, mounts and the kernel
    "mount",
    "umount2",
    "unshare",
    "setns",
    "pivot_root",
    "chroot",
    "bpf",
    "userfaultfd",
    "perf_event_open",
    "init_module",
    "finit_module",
    "delete_module",
    "kexec_load",
    "kexec_file_load",
    "reboot",
    "swapon",
    "swapoff",
    "acct",
    "quotactl",
    "syslog",
    "personality",
    "open_by_handle_at",
    "name_to_handle_at",
    "fanotify_init",
    "keyctl",
    "add_key",
    "request_key",
    "io_uring_setup",
    "io_uring_enter",
    "io_uring_register",
    "mount_setattr",
    "move_mount",
    "open_tree",
    "fsopen",
    "fsconfig",
    "fsmount",
    "fspick",
    # SysV IPC and POSIX message queues: objects that outlive the worker (without its own IPC namespace) or belong
    # to other processes; a reward has no one to share them with
    "shmget",
    "shmat",
    "shmctl",
    "msgget",
    "msgsnd",
    "msgrcv",
    "msgctl",
    "semget",
    "semop",
    "semtimedop",
    "semctl",
    "mq_open",
    "mq_unlink",
    "mq_timedsend",
    "mq_timedreceive",
    "mq_notify",
    "mq_getsetattr",
    # limits and scheduling of other processes (a uid-0 worker without capabilities may still act on the
    # parent's: same uid); the worker's own limits are set before this filter and stay as they are
    "setrlimit",
    "setpriority",
    "ioprio_set",
    "migrate_pages",
    "move_pages",
    "kcmp",
    "process_madvise",
    "process_mrelease",
)
NETWORK = ("socket", "socketpair", "connect", "bind", "listen", "accept", "accept4")
SIGNAL_OWN_PID_ONLY = ("kill", "tgkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo")
SELF_ONLY = ("sched_setaffinity", "sched_setscheduler", "sched_setparam", "sched_setattr", "setpgid", "prlimit64")
"""Calls whose first argument names a process: allowed only with 0 (the caller itself)."""


PROCESS_CALLS = ("execve", "execveat", "fork", "vfork")
"""Denied unless `allow_processes` (a GPU worker: see `install`); clone without CLONE_THREAD goes with them."""


def install(*, allow_network: bool, allow_processes: bool = False) -> str:
    """Load the filter on every thread of this process (TSYNC); return a short description.

    `allow_processes` (a GPU worker, `SandboxSettings.gpu`) leaves new processes and programs to the other layers:
    XLA starts NVIDIA's `ptxas` to compile for the GPU, from threads it made before lock-down. The thread that
    locked down, and every thread it starts, still may not execute any file (Landlock's execute right, granted
    nowhere), and its processes count against the thread and process limit."""
    if sc is None:
        return f"off: pyseccomp unusable ({_IMPORT_ERROR})"
    deny = sc.ERRNO(errno.EPERM)
    filt = sc.SyscallFilter(sc.ALLOW)
    filt.set_attr(sc.Attr.CTL_TSYNC, 1)
    unknown = []
    denied = tuple(n for n in DENIED if not (allow_processes and n in PROCESS_CALLS))
    for name in denied + (() if allow_network else NETWORK):
        try:
            filt.add_rule(deny, name)
        except (OSError, ValueError):  # a syscall this libseccomp or arch does not know
            unknown.append(name)
    filt.add_rule(sc.ERRNO(errno.ENOSYS), "clone3")
    if not allow_processes:
        filt.add_rule(deny, "clone", sc.Arg(0, sc.MASKED_EQ, _CLONE_THREAD, 0))
    pid = os.getpid()
    for name in SIGNAL_OWN_PID_ONLY:
        filt.add_rule(deny, name, sc.Arg(0, sc.NE, pid))
    for name in SELF_ONLY:
        filt.add_rule(deny, name, sc.Arg(0, sc.NE, 0))
    filt.add_rule(deny, "prlimit64", sc.Arg(2, sc.NE, 0))  # reading its own limits is fine, setting is not
    filt.add_rule(deny, "ioctl", sc.Arg(1, sc.MASKED_EQ, 0xFFFFFFFF, _TIOCSTI))
    filt.load()
    processes = "; new processes allowed (GPU worker)" if allow_processes else ""
    return "EPERM filter" + processes + (f" (unknown here: {', '.join(unknown)})" if unknown else "")
