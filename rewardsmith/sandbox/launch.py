"""Start a worker clean and supervise it (parent side).

A worker is a fresh interpreter (`python -I`, never a fork of the parent; its command line and import path are
`rewardsmith.sandbox.command`'s) with an allow-listed environment, its own session, no stdin and a capped log.
It dies with its parent (PR_SET_PDEATHSIG, set before the worker's code runs; a worker whose parent died before
that exits at once). Timeouts,
heartbeat stalls, a folder over its byte quota and a stop request (`interrupt.STOP`) kill the whole
session; afterwards every process the worker left behind is killed too, and its pids cgroup (if it made one) removed.
"""

from __future__ import annotations

import ctypes
import os
import select
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from rewardsmith.errors import SandboxError
from rewardsmith.sandbox import forkserver
from rewardsmith.sandbox.command import WORKER_MODULE, python_command, worker_command
from rewardsmith.sandbox.forkserver import WarmProcess
from rewardsmith.sandbox.interrupt import STOP, raise_if_stopping
from rewardsmith.sandbox.lockdown import release_pids_cgroup, sandbox_uid
from rewardsmith.sandbox.proc import pid_alive, process_state, stat_fields

PASSTHROUGH_ENV = (
    "MUJOCO_GL",
    "PYTHONHASHSEED",
    "XLA_FLAGS",
    "XLA_PYTHON_CLIENT_MEM_FRACTION",
    "XLA_PYTHON_CLIENT_PREALLOCATE",
)
"""The only parent variables a worker sees (when set); nothing that could hold a secret. The XLA ones let a user
tune the MJX backend's JAX (compiler flags, the share of GPU memory each worker takes)."""
SAFE_PATH = "/usr/local/bin:/usr/bin:/bin"
THREAD_VARS = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "NUMEXPR_NUM_THREADS")
POLL_S = 0.5
"""How often a running worker's limits (time, heartbeat, quota) and a stop request are checked; its exit is
seen at once (a pidfd), so a short job costs its own time, not a whole poll."""
TAIL_BYTES = 4000
_PR_SET_DUMPABLE = 4
FOLDER_ENTRY_CAP = 100_000
"""More files and folders than this in a worker's folder count as a quota breach."""


@dataclass
class WorkerResult:
    """How a worker ended. `reason` is "" when it exited 0 on its own."""

    returncode: int | None
    signal: int | None
    timed_out: bool
    stalled: bool
    wall_s: float
    output_tail: str
    reason: str
    over_quota: bool = False

    @property
    def ok(self) -> bool:
        return self.reason == ""


def worker_env(cwd: Path, extra_env: dict[str, str] | None = None) -> dict[str, str]:
    """The whole environment of a worker: an allow-list plus `extra_env`, never the parent's."""
    env = {"PATH": SAFE_PATH, "HOME": str(cwd), "LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1"}
    env.update({name: "1" for name in THREAD_VARS})
    env.update({name: os.environ[name] for name in PASSTHROUGH_ENV if name in os.environ})
    env.update(extra_env or {})
    return env


def worker_pids(root: Path, mode: str | None = None) -> list[int]:
    """Live sandboxed workers (of `mode`, or any) whose job lies under `root`: a cold worker names its job file in
    its command line; a forked one is named `rs-<mode>` and runs in its job folder."""
    prefix = str(Path(root).resolve()) + "/"
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
            if WORKER_MODULE.encode() in argv:
                ours = any(a.decode(errors="replace").startswith(prefix) for a in argv)
                ours = ours and (mode is None or mode.encode() in argv)
            else:
                name = (entry / "comm").read_text().strip()
                ours = (
                    name == f"{forkserver.NAME_PREFIX}{mode}"[:15] if mode else name.startswith(forkserver.NAME_PREFIX)
                )
                ours = ours and (os.readlink(entry / "cwd") + "/").startswith(prefix)
        except OSError:
            continue
        if ours and pid_alive(int(entry.name)):
            found.append(int(entry.name))
    return found


def protect_parent() -> None:
    """Make this process non-dumpable: processes without CAP_SYS_PTRACE (every locked-down
    worker, even one that kept uid 0) can then not read its /proc/<pid>/environ or memory."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0) != 0:
        raise SandboxError(f"prctl(PR_SET_DUMPABLE, 0) failed: {os.strerror(ctypes.get_errno())}")


def run_worker(
    mode: str,
    job_path: Path,
    *,
    cwd: Path,
    log_path: Path,
    timeout_s: float,
    heartbeat_path: Path | None = None,
    stall_timeout_s: float | None = None,
    output_cap_bytes: int = 1_000_000,
    extra_env: dict[str, str] | None = None,
    on_poll: Callable[[], None] | None = None,
    command: list[str] | None = None,
    quota_bytes: int | None = None,
) -> WorkerResult:
    """Run one worker to completion, a timeout, a stall or a quota breach; safe to call from many threads.

    `command` replaces `worker_command(mode, job_path)` (the probe and tests run other modules).
    `quota_bytes` caps what the whole `cwd` folder may hold (RLIMIT_FSIZE caps one file only): it is checked
    at every poll and once more after the exit. Raises `Interrupted` (after killing the worker) once a stop
    was requested.
    """
    raise_if_stopping()
    protect_parent()
    start = time.monotonic()
    with open(log_path, "wb") as log:
        proc = _start(mode, job_path, cwd, worker_env(cwd, extra_env), command)
        copier = _CappedCopy(proc.stdout, log, output_cap_bytes)  # type: ignore[arg-type]
        copier.start()
        timed_out = stalled = False
        over = ""
        pidfd = _pidfd(proc.pid)
        stall = StallClock(stall_timeout_s, start) if stall_timeout_s is not None else None
        try:
            while not _exited(proc) and not STOP.is_set():
                if on_poll is not None:
                    on_poll()
                now = time.monotonic()
                timed_out = now - start > timeout_s
                stalled = stall is not None and stall.stalled(now, _mtime(heartbeat_path), process_state(proc.pid))
                over = _over_quota(cwd, quota_bytes)
                if timed_out or stalled or over:
                    break
                _wait_for_exit(pidfd, POLL_S)
        finally:
            if pidfd is not None:
                os.close(pidfd)
        # the worker is dead or a zombie, so its pid (= session id) cannot be reused yet
        _kill_group(proc.pid)
        kill_leftovers(proc.pid)
        proc.wait()
        release_pids_cgroup(proc.pid)  # the worker's own pids cgroup, empty now
        copier.join(timeout=5)
    raise_if_stopping()
    over = over or _over_quota(cwd, quota_bytes)
    rc = proc.returncode
    sig = -rc if rc is not None and rc < 0 else None
    return WorkerResult(
        returncode=None if sig else rc,
        signal=sig,
        timed_out=timed_out,
        stalled=stalled,
        wall_s=time.monotonic() - start,
        output_tail=copier.tail(),
        reason=over or _reason(rc, sig, timed_out, stalled, timeout_s, stall_timeout_s),
        over_quota=bool(over),
    )


def _start(
    mode: str, job_path: Path, cwd: Path, env: dict[str, str], command: list[str] | None
) -> subprocess.Popen | WarmProcess:
    """A worker for the job: forked by the warm fork server when there is one (the real worker only, not a
    `command` of the probe's or the tests'), else a cold `python -I` process. Both are new sessions."""
    server = None if command else forkserver.shared(python_command(forkserver.SERVER_MODULE), worker_env(cwd))
    if server is not None:
        read_end, write_end = os.pipe()
        try:
            pid = server.spawn([mode, str(job_path)], cwd, env, write_end)
        except (SandboxError, OSError):
            os.close(read_end)  # a server that cannot fork now: this job starts cold
        else:
            return WarmProcess(server, pid, os.fdopen(read_end, "rb"))
        finally:
            os.close(write_end)
    argv = command or worker_command(mode, job_path)
    try:
        return subprocess.Popen(
            argv,
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            close_fds=True,
            start_new_session=True,
        )
    except OSError as exc:
        raise SandboxError(f"could not start worker {argv[:3]}...: {exc}") from exc


def _exited(proc: subprocess.Popen | WarmProcess) -> bool:
    """True once the worker has exited, without reaping it (a forked worker is the server's child: a zombie until
    the server reaps it, so not alive)."""
    return not pid_alive(proc.pid) if isinstance(proc, WarmProcess) else _has_exited(proc.pid)


def _over_quota(folder: Path, quota_bytes: int | None) -> str:
    """ "" while `folder` holds at most `quota_bytes` (disk blocks, symlinks not followed) and at most
    FOLDER_ENTRY_CAP entries; else the reason the worker is stopped."""
    if quota_bytes is None:
        return ""
    used, entries = folder_usage(folder, FOLDER_ENTRY_CAP)
    if used > quota_bytes:
        return (
            f"filled its folder with {used / 2**20:,.0f} MiB, over the {quota_bytes / 2**20:,.0f} MiB quota, "
            "and was killed"
        )
    if entries > FOLDER_ENTRY_CAP:
        return f"created more than {FOLDER_ENTRY_CAP:,} files and folders in its folder and was killed"
    return ""


def folder_usage(folder: Path, max_entries: int) -> tuple[int, int]:
    """(bytes on disk, entries) under `folder`: an iterative walk that never follows a symlink and stops
    counting after `max_entries` entries."""
    used, entries, stack = 0, 0, [str(folder)]
    while stack and entries <= max_entries:
        try:
            with os.scandir(stack.pop()) as found:
                for entry in found:
                    entries += 1
                    info = entry.stat(follow_symlinks=False)
                    used += info.st_blocks * 512
                    if entry.is_dir(follow_symlinks=False):
                        stack.append(entry.path)
        except OSError:
            continue
    return used, entries


def _reason(
    rc: int | None, sig: int | None, timed_out: bool, stalled: bool, timeout_s: float, stall_timeout_s: float | None
) -> str:
    if timed_out:
        return f"timed out after {timeout_s:g} s and was killed"
    if stalled:
        return f"sent no heartbeat for {stall_timeout_s:g} s and was killed"
    if sig is not None:
        try:
            return f"crashed with {signal.Signals(sig).name}"
        except ValueError:
            return f"crashed with signal {sig}"
    return "" if rc == 0 else f"exited with code {rc}"


def _has_exited(pid: int) -> bool:
    """True once `pid` has exited, without reaping it (WNOWAIT)."""
    info = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
    return info is not None


def _pidfd(pid: int) -> int | None:
    """A pidfd for `pid` (Linux 5.3+): readable once it exits, without reaping or signalling it."""
    try:
        return os.pidfd_open(pid)
    except (AttributeError, OSError):
        return None


def _wait_for_exit(pidfd: int | None, timeout_s: float) -> None:
    """Sleep up to `timeout_s`, waking as soon as the worker exits (or, without a pidfd, a stop is requested)."""
    if pidfd is None:
        STOP.wait(timeout_s)
        return
    poller = select.poll()
    poller.register(pidfd, select.POLLIN)
    poller.poll(timeout_s * 1000)


LATE_POLL_S = POLL_S + 2.0
"""A poll that comes later than this after the one before means the supervisor itself was not running (a suspended
laptop, a paused VM, a starved host): that interval does not count against the worker."""


class StallClock:
    """How long a worker has gone without a heartbeat while it could have sent one; stalled past `limit_s`.

    A poll interval counts only when the supervisor itself polled on time (`LATE_POLL_S`) and the worker was not in
    uninterruptible disk sleep (state D): where the machine's disk is saturated (a `pip install` beside a search),
    the kernel holds the worker's writes, its heartbeat's among them, and that is not the worker's stall. Measured
    on 2026-12-06: two healthy SAC trainings of a calibration were killed together for "no heartbeat for 120 s"
    while a fresh `./install.sh` ran beside them. A new heartbeat (its mtime changed) starts the clock again. A
    worker that spins or sleeps without a heartbeat still stalls, and `timeout_s` bounds every worker."""

    def __init__(self, limit_s: float, now: float) -> None:
        self.limit_s = limit_s
        self.quiet_s = 0.0
        self.last_poll = now
        self.last_beat: float | None = None

    def stalled(self, now: float, beat: float | None, state: str) -> bool:
        """Account the interval since the last poll (`now`: monotonic seconds; `beat`: the heartbeat's mtime, None
        without one; `state`: the worker's /proc state letter) and say whether the worker is stalled."""
        interval, self.last_poll = now - self.last_poll, now
        if beat != self.last_beat:
            self.last_beat, self.quiet_s = beat, 0.0
        elif interval <= LATE_POLL_S and state != "D":
            self.quiet_s += interval
        return self.quiet_s > self.limit_s


def _mtime(path: Path | None) -> float | None:
    try:
        return path.stat().st_mtime if path is not None else None
    except OSError:
        return None


def _kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def kill_leftovers(worker_pid: int, rounds: int = 50) -> int:
    """SIGKILL every process in the worker's session or running as its sandbox uid; repeat
    until none is left (a fork bomb refills between rounds). Returns how many were killed."""
    uid = sandbox_uid(worker_pid) if os.geteuid() == 0 else None
    killed = 0
    for _ in range(rounds):
        found = [pid for pid in _all_pids() if pid != worker_pid and _belongs(pid, worker_pid, uid)]
        if not found:
            break
        for pid in found:
            try:
                os.kill(pid, signal.SIGKILL)
                killed += 1
            except (ProcessLookupError, PermissionError):
                pass
        time.sleep(0.02)
    return killed


def _all_pids() -> list[int]:
    return [int(name) for name in os.listdir("/proc") if name.isdigit()]


def _belongs(pid: int, session: int, uid: int | None) -> bool:
    fields = stat_fields(pid)
    try:
        status = Path(f"/proc/{pid}/status").read_text() if uid is not None else ""
    except OSError:
        return False
    if not fields or fields[0] == "Z":
        return False
    if int(fields[3]) == session:
        return True
    uid_line = next((line for line in status.splitlines() if line.startswith("Uid:")), "")
    return uid is not None and str(uid) in uid_line.split()[1:2]


class _CappedCopy(threading.Thread):
    """Copies the worker's output into the log up to a cap, then only notes the truncation."""

    def __init__(self, source: BinaryIO, log: BinaryIO, cap: int) -> None:
        super().__init__(daemon=True)
        self.source, self.log, self.cap = source, log, cap
        self.written = 0
        self._tail = bytearray()

    def run(self) -> None:
        truncated = False
        while chunk := self.source.read1(65536):  # type: ignore[attr-defined]
            self._tail = (self._tail + chunk)[-TAIL_BYTES:]
            room = self.cap - self.written
            if room > 0:
                self.log.write(chunk[:room])
                self.written += min(room, len(chunk))
            if len(chunk) > room and not truncated:
                self.log.write(b"\n[output truncated]\n")
                truncated = True
        self.log.flush()

    def tail(self) -> str:
        return self._tail.decode("utf-8", "replace")
