"""`rewardsmith doctor`: prove, in a real short-lived child, which sandbox layers hold here.

The child (`--child DIR`) starts like a worker, calls `lock_down(DIR)`, then attacks itself
(socket, fork, writes outside DIR, the parent's environ, ...) and writes probe.json into DIR.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import socket
import sys
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

from rewardsmith.errors import SandboxError

LAYERS = (
    "clean-start",
    "ast-gate",
    "rlimits",
    "seccomp",
    "landlock",
    "netns",
    "ipc-ns",
    "pids",
    "uid-drop",
    "proc-isolation",
)
DEFAULT_MINIMUM = ["clean-start", "rlimits", "seccomp", "ast-gate", "uid-drop"]
"""uid-drop holds when workers do not run as uid 0 (dropped to a sandbox uid, or never root). Where it cannot
hold, runs refuse unless the user opts in: `[sandbox] allow_uid0 = true` or REWARDSMITH_ALLOW_UID0=1."""
GIVEN_UP = {
    "clean-start": "workers could inherit the parent's environment (API keys) and site settings",
    "ast-gate": "generated code reaches the OS layers unfiltered",
    "rlimits": "no cap on a worker's memory, CPU time, file size or open files",
    "seccomp": "workers may fork, exec, use sockets, SysV IPC and namespaces (the other layers are all that remain)",
    "landlock": "workers may read and write any file their uid may (other runs, your home, /tmp); the pids cgroup "
    "holds only while /sys stays read-only",
    "netns": "workers share the host's network interfaces (seccomp's socket denial remains)",
    "ipc-ns": "workers share the host's SysV IPC and POSIX message queues (seccomp denies those calls; without it, "
    "objects a worker makes outlive it)",
    "pids": "no limit on a worker's threads: only the memory and CPU limits stop a thread bomb (fork stays denied by "
    "seccomp)",
    "uid-drop": "workers run as uid 0 without capabilities: they own what root owns and RLIMIT_NPROC does not apply",
    "proc-isolation": "workers can read the parent's environment (API keys) through /proc",
}
"""What a user gives up where a layer cannot hold: the doctor prints it under the table."""
PROBE_MEMORY_MB = 1024
PROBE_PROCESSES = 16
_SYSV_KEY = 0x52534D50  # "RSMP": the probe's own SysV segment, removed at once if it was made
_PROBE_TIMEOUT_S = 120.0


@dataclass
class LayerStatus:
    """Whether one layer was applied and proven to hold, with what the probe saw."""

    ok: bool
    detail: str


def probe_layers() -> dict[str, LayerStatus]:
    """Run the probe child and return the status of every layer in LAYERS."""
    from rewardsmith.sandbox.command import python_command
    from rewardsmith.sandbox.launch import run_worker

    folder = Path(tempfile.mkdtemp(prefix="rewardsmith-probe-"))
    try:
        result = run_worker(
            "probe",
            folder / "job.json",
            cwd=folder,
            log_path=folder / "log.txt",
            timeout_s=_PROBE_TIMEOUT_S,
            command=python_command("rewardsmith.sandbox.probe", "--child", str(folder)),
        )
        report_path = folder / "probe.json"
        if not result.ok or not report_path.exists():
            detail = f"probe child failed: {result.reason or 'no report'}; {result.output_tail[-500:]}"
            status = {name: LayerStatus(False, detail) for name in LAYERS}
        else:
            raw = json.loads(report_path.read_text())
            status = {name: LayerStatus(bool(ok), str(detail)) for name, (ok, detail) in raw.items()}
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    status["ast-gate"] = _probe_ast_gate()
    return {name: status.get(name, LayerStatus(False, "not probed")) for name in LAYERS}


def require_minimum(minimum: list[str], status: dict[str, LayerStatus] | None = None) -> None:
    """Raise SandboxError unless every layer in `minimum` holds on this machine."""
    status = status if status is not None else probe_layers()
    missing = [name for name in minimum if not status.get(name, LayerStatus(False, "unknown layer")).ok]
    if missing:
        raise SandboxError(
            f"this machine lacks sandbox layers {', '.join(missing)} required by "
            f"sandbox.minimum={minimum}; run `rewardsmith doctor`"
        )


def doctor_rows(status: dict[str, LayerStatus] | None = None) -> list[tuple[str, bool, str]]:
    """(layer, holds, detail) rows for the doctor table, in LAYERS order."""
    status = status if status is not None else probe_layers()
    return [(name, status[name].ok, status[name].detail) for name in LAYERS]


def _probe_ast_gate() -> LayerStatus:
    from rewardsmith.sandbox.policy import check_source

    bad = "import os\ndef compute_reward(s, a, n):\n    return ().__class__, {}\n"
    good = "import numpy as np\ndef compute_reward(s, a, n):\n    return float(np.sum(a)), {}\n"
    codes = {f.code for f in check_source(bad)}
    ok = codes >= {"forbidden-import", "dunder-attribute"} and not check_source(good)
    return LayerStatus(ok, "rejects imports and dunder access" if ok else f"saw {sorted(codes)}")


def _attempt(action: object) -> str:
    """ "" when `action` raised (the attack was blocked), else what it returned."""
    try:
        return repr(action())  # type: ignore[operator]
    except (OSError, MemoryError):
        return ""


def _fork() -> int:
    pid = os.fork()
    if pid == 0:  # only if the seccomp layer failed: the copy must not run the probe
        os._exit(0)
    os.waitpid(pid, 0)
    return pid


def _child(folder: Path) -> dict[str, tuple[bool, str]]:
    """Lock this process down and try to break every layer; return layer -> (holds, detail)."""
    from rewardsmith.sandbox.launch import PASSTHROUGH_ENV, THREAD_VARS
    from rewardsmith.sandbox.lockdown import SandboxSettings, lock_down

    allowed = {"PATH", "HOME", "LANG", "PYTHONDONTWRITEBYTECODE", *THREAD_VARS, *PASSTHROUGH_ENV}
    extra = sorted(set(os.environ) - allowed)
    clean = sys.flags.isolated == 1 and not extra
    from rewardsmith.sandbox.lockdown import pids_cgroup_folder

    ipc_before = os.readlink("/proc/self/ns/ipc")
    cgroup = pids_cgroup_folder(os.getpid())  # where lock_down puts this process, if it can
    layers = lock_down(folder, SandboxSettings(memory_mb=PROBE_MEMORY_MB, processes=PROBE_PROCESSES))
    ppid = os.getppid()
    proofs = {
        "rlimits": _attempt(lambda: len(bytearray(2 * PROBE_MEMORY_MB * 1024 * 1024))),
        "seccomp": _attempt(_fork) or _attempt(socket.socket) or _attempt(_sysv_segment),
        "ipc-ns": "" if os.readlink("/proc/self/ns/ipc") != ipc_before else "still in the parent's IPC namespace",
        "pids": _thread_bomb(PROBE_PROCESSES + 8) or _attempt(lambda: _leave_pids_cgroup(cgroup)),
        "landlock": _attempt(lambda: open(f"/tmp/rewardsmith-probe-{os.getpid()}", "w").close()),
        "netns": "" if _interfaces() == ["lo"] else f"interfaces {_interfaces()}",
        "uid-drop": "" if os.getuid() != 0 else "still uid 0",
        "proc-isolation": _attempt(lambda: Path(f"/proc/{ppid}/environ").read_bytes()[:8]),
    }
    (folder / "inside.txt").write_text("ok")  # must still work
    threads_ok = _thread_works()
    result = {
        "clean-start": (
            clean,
            "isolated interpreter, allow-listed environment"
            if clean
            else f"isolated={sys.flags.isolated}, extra variables {extra}",
        )
    }
    if os.getuid() != 0 and layers["uid-drop"].startswith("off: not root"):
        layers["uid-drop"] = f"on (not root: workers run as uid {os.getuid()})"
    for name, escaped in proofs.items():
        applied = layers.get(name, "on (parent's /proc/<pid>/environ is unreadable)")
        holds = not escaped and applied.startswith("on") and threads_ok
        detail = (
            applied if not escaped or applied.startswith("off") else f"{applied}; but the attack worked: {escaped[:80]}"
        )
        result[name] = (holds, detail if threads_ok else f"{detail}; threads broke")
    return result


def _sysv_segment() -> int:
    """Make (and remove at once) a SysV shared memory segment; OSError when that is denied."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    shmid = libc.shmget(_SYSV_KEY, 4096, 0o1600)  # IPC_CREAT | 0600
    if shmid < 0:
        raise OSError(ctypes.get_errno(), "shmget")
    libc.shmctl(shmid, 0, None)  # IPC_RMID
    return shmid


def _leave_pids_cgroup(cgroup: Path | None) -> str:
    """Try to lift this process's pids limit, then to move out of its cgroup (a worker that keeps uid 0 owns the
    cgroup files: Landlock must stop both)."""
    if cgroup is None or not cgroup.is_dir():
        raise OSError("no pids cgroup of its own")  # nothing to leave: the limit, if any, is RLIMIT_NPROC
    done = []
    for target, value in ((cgroup / "pids.max", "max"), (cgroup.parent / "cgroup.procs", str(os.getpid()))):
        try:
            target.write_text(value)
            done.append(str(target))
        except OSError:
            pass
    if not done:
        raise OSError("both refused")
    return f"wrote {', '.join(done)}"


def _thread_bomb(tries: int) -> str:
    """ "" when starting `tries` threads (more than the probe's limit) failed along the way, else what happened."""
    release, started = threading.Event(), []
    threading.stack_size(256 * 1024)  # so the memory limit is not what stops them
    try:
        for _ in range(tries):
            thread = threading.Thread(target=release.wait, daemon=True)
            thread.start()
            started.append(thread)
    except RuntimeError:  # "can't start new thread": the limit held
        return ""
    finally:
        release.set()
        for thread in started:
            thread.join()
        threading.stack_size(0)
    return f"started {len(started)} threads where the limit is {PROBE_PROCESSES}"


def _interfaces() -> list[str]:
    lines = Path("/proc/thread-self/net/dev").read_text().splitlines()[2:]
    return sorted(line.split(":")[0].strip() for line in lines)


def _thread_works() -> bool:
    out: list[int] = []
    worker = threading.Thread(target=lambda: out.append(sum(range(1000))))
    worker.start()
    worker.join()
    return out == [499500]


def main(argv: list[str]) -> int:
    """`python -I -m rewardsmith.sandbox.probe --child DIR`: the probe child."""
    if len(argv) != 2 or argv[0] != "--child":
        print("usage: python -I -m rewardsmith.sandbox.probe --child DIR", file=sys.stderr)
        return 2
    folder = Path(argv[1])
    report = _child(folder)
    (folder / "probe.json").write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    sys.exit(main(sys.argv[1:]))
