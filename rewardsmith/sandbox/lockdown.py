"""Lock a worker process down before it runs generated code.

Call `lock_down` once, in the worker, after heavy imports and env construction and BEFORE the
reward module is loaded or called. Layers, in order (each one recorded "on ..." or "off: why"):
netns, ipc-ns, pids (these three need root) → rlimits → landlock → uid-drop (root only) → seccomp (last: it
forbids the calls the earlier layers make).

What each OS layer promises, and what is lost where it cannot hold (`rewardsmith doctor` says which hold here):

- netns: an empty network namespace, no interface but loopback. Without it (not root) only seccomp's socket
  denial and Landlock's TCP rule keep the worker off the network.
- ipc-ns: an IPC namespace of its own, so SysV shared memory, message queues, semaphores and POSIX message queues
  a worker makes die with it and the host's are out of reach. Seccomp also denies every SysV IPC and POSIX
  message-queue call, so without the namespace (not root) nothing is lost while seccomp holds; without both, such
  objects outlive the worker.
- pids: a cgroup of its own whose pids.max counts every thread and process (`_enter_pids_cgroup`), needed because
  RLIMIT_NPROC does not apply to uid 0. Without a writable pids controller the limit is RLIMIT_NPROC after a uid
  drop; a worker that keeps uid 0 there has no thread limit, only RLIMIT_AS (each thread's stack) and RLIMIT_CPU
  bound it, and fork stays denied by seccomp. The cgroup holds while Landlock keeps /sys read-only (uid 0 without
  capabilities still owns the cgroup files).
- rlimits: memory (address space), CPU seconds, file size, open files, no core dumps; per process, always.
- landlock: reads limited to system folders, the interpreter and the package; writes to the worker's folder only.
- uid-drop: a uid of its own (root only), so other processes and files are out of reach by permissions, and
  RLIMIT_NPROC applies. Where uid 0 is kept, all capabilities are dropped, but the worker still owns what root owns.
- seccomp: no exec, fork, ptrace, namespaces, mounts, SysV IPC, sockets (unless allowed), acting on other
  processes' limits or priorities.

A GPU training worker (`SandboxSettings.gpu`) counts its limits from what its CUDA context holds at lock-down, may
open the NVIDIA device files, and, where Landlock and a process limit hold, may start processes: XLA runs NVIDIA's
`ptxas` from threads made before lock-down, while Landlock still lets the locked-down thread and its descendants
execute no file.

The AST gate (`policy`) is a layer of its own in front of these; the OS layers assume it has been walked around.
"""

from __future__ import annotations

import ctypes
import os
import resource
import stat
import sys
import sysconfig
import time
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from rewardsmith.sandbox import capabilities, landlock_rules, syscall_filter

SANDBOX_UID_BASE = 100_000
"""A root-started worker with pid P runs as uid/gid SANDBOX_UID_BASE + P: unique among live
workers, so limits count per worker and the parent can find every process it left behind."""

LOCKDOWN_LAYERS = ("netns", "ipc-ns", "pids", "rlimits", "landlock", "uid-drop", "seccomp")
_CLONE_NEWNET = 0x40000000
_CLONE_NEWIPC = 0x08000000
PIDS_CGROUP_PREFIX = "rewardsmith-worker-"
"""A worker's own pids cgroup is named this plus its pid (see `_enter_pids_cgroup`)."""
_PR_SET_PDEATHSIG = 1
_SYSTEM_READ_ROOTS = (
    "/usr",
    "/lib",
    "/lib64",
    "/lib32",
    "/proc",
    "/sys",
    "/dev",
    # from /etc only what the loader, libc and time zones read (not shadow, ssh keys, ...)
    "/etc/ld.so.cache",
    "/etc/localtime",
    "/etc/passwd",
    "/etc/group",
    "/etc/nsswitch.conf",
)


class SandboxSettings(BaseModel):
    """Resource limits and switches for one sandboxed worker."""

    model_config = ConfigDict(use_attribute_docstrings=True, extra="forbid")

    memory_mb: int = 6144
    """RLIMIT_AS: address space in MiB; allocations beyond it raise MemoryError."""
    cpu_s: int = 3600
    """RLIMIT_CPU: CPU seconds (all threads) before SIGXCPU; a backstop for the wall timeout."""
    file_mb: int = 512
    """RLIMIT_FSIZE: largest file the worker may write, in MiB."""
    open_files: int = 256
    """RLIMIT_NOFILE: open file descriptors."""
    folder_mb: int = 1024
    """Quota for the worker's whole folder in MiB, enforced by the supervising parent (RLIMIT_FSIZE caps one
    file only): over it the worker is killed and the candidate rejected."""
    processes: int = 64
    """Threads and processes of the worker (fork is also denied by seccomp): a pids cgroup's pids.max where one can be
    made (root), else RLIMIT_NPROC for the sandbox uid, applied only after a uid drop (an unprivileged user's limit
    counts all their processes; root's is not enforced)."""
    allow_network: bool = False
    """Keep network access (no netns, sockets allowed). Only for trusted debugging."""
    extra_read_paths: list[Path] = []
    """Folders the worker may read after lock_down besides the interpreter, the rewardsmith
    package and system folders (e.g. a folder of custom envs)."""
    gpu: bool = False
    """Set by a training worker that holds a CUDA context made before lock_down (the MJX backend on a GPU; see
    `GPU_THREAD_HEADROOM`): the address-space limit is then `memory_mb` beyond the addresses the worker holds at
    lock_down (CUDA reserves tens of GiB of addresses it never backs, so a plain limit would refuse every later
    allocation), the thread limit counts beyond the threads it holds then, the NVIDIA device files
    (/dev/nvidia*) may be opened read-write with device ioctls, as the driver needs, and seccomp lets it start
    processes (XLA runs NVIDIA's `ptxas`), where Landlock forbids executing any file and a process limit holds."""
    enabled: bool = True
    """Benchmark-only: False makes `lock_down` apply no layer at all, so `bench/sandbox.py` can measure
    what the sandbox costs. Never set it for candidate code."""


def sandbox_uid(pid: int) -> int:
    """The uid (and gid) a root-started worker with this pid drops to."""
    return SANDBOX_UID_BASE + pid


def lock_down(writable: Path, settings: SandboxSettings) -> dict[str, str]:
    """Apply every available layer; return layer name → "on ..." or "off: <reason>".

    Writes nothing itself. Only `writable` (and /dev/null) stay writable afterwards.
    """
    if not settings.enabled:
        return {name: "off: disabled (benchmark only)" for name in LOCKDOWN_LAYERS}
    writable = writable.resolve()
    threads = len(os.listdir("/proc/self/task"))
    thread_note = (
        "" if threads == 1 else f" (this thread and later ones; {threads - 1} earlier threads keep the old setting)"
    )
    status = {"netns": "off: allow_network=True" if settings.allow_network else _guard(_unshare_network) + thread_note}
    status["ipc-ns"] = _guard(_unshare_ipc) + thread_note
    if settings.gpu:  # the limits count from what the CUDA context already holds
        settings = settings.model_copy(
            update={
                "memory_mb": settings.memory_mb + _address_space_mb(),
                "processes": settings.processes + threads + GPU_THREAD_HEADROOM,
            }
        )
    status["pids"] = _guard(lambda: _limit_processes(settings.processes))
    status["rlimits"] = _guard(lambda: _set_rlimits(settings, with_nproc=False))
    devices = gpu_device_files() if settings.gpu else []
    status["landlock"] = (
        _guard(
            lambda: landlock_rules.restrict(
                read_roots(settings), writable, block_tcp=not settings.allow_network, devices=devices
            )
        )
        + thread_note
    )
    status["uid-drop"] = _guard(lambda: _drop_privileges(writable))
    if status["uid-drop"].startswith("on") and status["rlimits"].startswith("on"):
        status["rlimits"] = _guard(lambda: _set_rlimits(settings, with_nproc=True))
        if status["pids"].startswith("off"):
            status["pids"] = f"on (RLIMIT_NPROC={settings.processes} for the sandbox uid; {status['pids'][5:]})"
    # a GPU worker's XLA starts `ptxas`; only where Landlock forbids executing and a process limit holds
    processes = settings.gpu and status["landlock"].startswith("on") and status["pids"].startswith("on")
    status["seccomp"] = _guard(
        lambda: syscall_filter.install(allow_network=settings.allow_network, allow_processes=processes)
    )
    if status["pids"].startswith("on (cgroup") and not status["landlock"].startswith("on") and os.getuid() == 0:
        status["pids"] = status["pids"][:-1] + "; but without Landlock this uid-0 worker could lift it)"
    return status


GPU_THREAD_HEADROOM = 192
"""Threads a GPU worker may start beyond its own limit and those it held at lock_down: XLA's GPU client starts
thread pools sized by the machine's cores when it first compiles and runs."""


def _address_space_mb() -> int:
    """This process's address space now (VmSize), in MiB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmSize:"):
            return int(line.split()[1]) // 1024 + 1
    return 0


def gpu_device_files() -> list[Path]:
    """The NVIDIA driver's device files (/dev/nvidia0, nvidiactl, nvidia-uvm, ...) that exist here."""
    return sorted(Path("/dev").glob("nvidia*"))


def _guard(apply: object) -> str:
    """Run one layer; "on <detail>" when it applied, "off: <reason>" when it could not."""
    try:
        detail = apply()  # type: ignore[operator]
    except (OSError, ImportError, RuntimeError, ValueError) as exc:
        return f"off: {type(exc).__name__}: {exc}"
    return detail if detail.startswith("off:") else f"on ({detail})"


def _unshare_network() -> str:
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(_CLONE_NEWNET) != 0:
        err = ctypes.get_errno()
        return f"off: unshare(CLONE_NEWNET): {os.strerror(err)}"
    return "empty network namespace"


def _unshare_ipc() -> str:
    if os.geteuid() != 0:
        return "off: not root (an IPC namespace needs CAP_SYS_ADMIN)"
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(_CLONE_NEWIPC) != 0:
        return f"off: unshare(CLONE_NEWIPC): {os.strerror(ctypes.get_errno())}"
    return "own IPC namespace: SysV and POSIX message-queue objects die with the worker"


def _limit_processes(limit: int) -> str:
    if os.geteuid() != 0:
        return "off: not root: no cgroup of its own (RLIMIT_NPROC applies only after a uid drop)"
    return _enter_pids_cgroup(limit)


def _set_rlimits(settings: SandboxSettings, *, with_nproc: bool) -> str:
    mib = 1024 * 1024
    limits = {
        resource.RLIMIT_AS: settings.memory_mb * mib,
        resource.RLIMIT_CPU: settings.cpu_s,
        resource.RLIMIT_FSIZE: settings.file_mb * mib,
        resource.RLIMIT_NOFILE: settings.open_files,
        resource.RLIMIT_CORE: 0,
    }
    if with_nproc:
        limits[resource.RLIMIT_NPROC] = settings.processes
    for kind, value in limits.items():
        _, hard = resource.getrlimit(kind)
        value = value if hard == resource.RLIM_INFINITY else min(value, hard)
        soft_hard = (value, value + 10) if kind == resource.RLIMIT_CPU else (value, value)
        if hard != resource.RLIM_INFINITY:
            soft_hard = (soft_hard[0], min(soft_hard[1], hard))
        resource.setrlimit(kind, soft_hard)
    return (
        f"as={settings.memory_mb}MiB cpu={settings.cpu_s}s fsize={settings.file_mb}MiB "
        f"nofile={settings.open_files}" + (f" nproc={settings.processes}" if with_nproc else "")
    )


def _drop_privileges(writable: Path) -> str:
    if os.geteuid() != 0:
        return f"off: not root (runs as uid {os.geteuid()}; nothing to drop)"
    private = _private_python_folder()
    if private:
        capabilities.drop_all()
        return (
            f"off: {private} is not readable by other users, so an unprivileged uid could not import the "
            "standard library; kept uid 0 but dropped all capabilities. Fix: use a Python installed outside "
            f"a private home (e.g. under /usr/local or /opt, and a venv made from it), or let others traverse "
            f"and read the path (chmod o+rx {private}); or accept uid 0 with `[sandbox] allow_uid0 = true`"
        )
    uid = sandbox_uid(os.getpid())
    parent = os.getppid()
    # only the folder itself: files the parent put there (reward.py, job.json) stay read-only
    os.lchown(writable, uid, uid)
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)
    _die_with_parent(parent)
    return f"uid/gid {uid}, no groups"


def _die_with_parent(parent: int) -> None:
    """Ask again for SIGKILL on the parent's death (a credential change clears PR_SET_PDEATHSIG), and exit
    if the parent already died in between (the worker was re-parented)."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_PDEATHSIG, 9, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_PDEATHSIG)")
    if os.getppid() != parent:
        os._exit(70)


def _private_python_folder() -> str:
    """The first folder on the way to the interpreter's libraries that others cannot enter."""
    for key in ("stdlib", "platstdlib", "purelib", "platlib"):
        path = Path(sysconfig.get_paths()[key]).resolve()
        for folder in [*reversed(path.parents), path]:
            mode = folder.stat().st_mode
            if not mode & stat.S_IXOTH or (folder == path and not mode & stat.S_IROTH):
                return str(folder)
    return ""


def read_roots(settings: SandboxSettings) -> list[Path]:
    """Folders readable after lock_down: system folders, the interpreter, rewardsmith itself.

    The checkout holding the package is left out (it may hold a .env or other runs' files).
    """
    import rewardsmith

    package = Path(rewardsmith.__file__).resolve().parent
    roots = [Path(p) for p in _SYSTEM_READ_ROOTS]
    roots += [
        Path(p)
        for p in (sys.prefix, sys.base_prefix, sys.exec_prefix, *sys.path)
        if p and Path(p).resolve() != package.parent
    ]
    roots += [package, *settings.extra_read_paths]
    unique = dict.fromkeys(p.resolve() for p in roots if p.exists())
    return list(unique)


# -- the pids cgroup: a thread and process limit that also binds uid 0 -----------------------------------


def _cgroup_mount(version: int) -> tuple[Path, str] | None:
    """(mount point, mount root) of the pids hierarchy of cgroup v1, or of the cgroup v2 tree."""
    try:
        lines = Path("/proc/self/mountinfo").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        head, _, tail = line.partition(" - ")
        fields, kind = head.split(), tail.split()
        if len(fields) < 5 or len(kind) < 3:
            continue
        if (version == 1 and kind[0] == "cgroup" and "pids" in kind[2].split(",")) or (
            version == 2 and kind[0] == "cgroup2"
        ):
            return Path(fields[4]), fields[3]
    return None


def _own_cgroup(version: int) -> str | None:
    """This process's cgroup path in the hierarchy of `version`, from /proc/self/cgroup."""
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        _, controllers, path = line.split(":", 2)
        if (version == 1 and "pids" in controllers.split(",")) or (version == 2 and controllers == ""):
            return path
    return None


def _pids_base() -> tuple[Path, int] | None:
    """(folder under which workers' pids cgroups are made, cgroup version), or None where there is no pids
    controller. Worker and parent find the same folder: both start in the same cgroup. A v1 worker's cgroup is a
    child of that cgroup, a v2 one a sibling (v2 puts no process in an inner cgroup)."""
    for version in (1, 2):
        mount, own = _cgroup_mount(version), _own_cgroup(version)
        if mount is None or own is None:
            continue
        point, root = mount
        relative = os.path.relpath(own, root) if own.startswith(root) else None
        if relative is None or relative.startswith(".."):
            continue
        folder = point if relative == "." else point / relative
        if version == 2:
            folder = folder if folder == point else folder.parent
            try:
                if "pids" not in (folder / "cgroup.subtree_control").read_text().split():
                    continue
            except OSError:
                continue
        return folder, version
    return None


def pids_cgroup_folder(pid: int) -> Path | None:
    """Where a worker with this pid makes its pids cgroup (None where there is no pids controller)."""
    found = _pids_base()
    return found[0] / f"{PIDS_CGROUP_PREFIX}{pid}" if found else None


def _enter_pids_cgroup(limit: int) -> str:
    """Move this process into a fresh pids cgroup with `pids.max = limit`; a description, or "off: why"."""
    found = _pids_base()
    if found is None:
        return "off: no pids cgroup controller mounted here (neither a cgroup v1 pids hierarchy nor v2 with pids)"
    base, version = found
    folder = base / f"{PIDS_CGROUP_PREFIX}{os.getpid()}"
    try:
        folder.mkdir()
        (folder / "pids.max").write_text(str(limit))
        (folder / "cgroup.procs").write_text(str(os.getpid()))
    except OSError as e:
        try:
            folder.rmdir()
        except OSError:
            pass
        return f"off: cannot make a pids cgroup under {base} ({e.strerror or e})"
    return f"cgroup v{version} pids.max={limit} (threads and processes)"


def release_pids_cgroup(pid: int, attempts: int = 20) -> bool:
    """Remove a finished worker's pids cgroup (and any stale empty ones of dead workers); True when its own is gone.
    Only empty cgroups can be removed, so this never touches a live worker's."""
    found = _pids_base()
    if found is None:
        return True
    base, _ = found
    mine = base / f"{PIDS_CGROUP_PREFIX}{pid}"
    for _ in range(attempts):
        try:
            mine.rmdir()
            break
        except FileNotFoundError:
            break
        except OSError:
            time.sleep(0.05)  # the last thread is still being reaped
    try:
        found_there = [p for p in base.iterdir() if p.name.startswith(PIDS_CGROUP_PREFIX)]
    except OSError:
        found_there = []
    stale = [p for p in found_there if not _pid_alive(p.name.removeprefix(PIDS_CGROUP_PREFIX))]
    for folder in stale:
        try:
            folder.rmdir()
        except OSError:
            pass
    return not mine.exists()


def _pid_alive(pid: str) -> bool:
    return pid.isdigit() and Path(f"/proc/{pid}").exists()
