"""Child program for the lock-down tests: `python -I tests/sandbox_child.py ROOT checks|key FOLDER`.

Locks down (writable FOLDER), tries the attacks lock_down must stop and the work that must still be
possible, and writes FOLDER/result.json. (The hostile corpus runs through the real worker instead.)
"""

from __future__ import annotations

import json
import os
import socket
import sys
import threading
from pathlib import Path

sys.path.insert(0, sys.argv[1])  # the checkout under test (-I ignores PYTHONPATH)

import numpy as np

from rewardsmith.sandbox.lockdown import SandboxSettings, lock_down

SETTINGS = SandboxSettings(memory_mb=2048, cpu_s=120)


def attempt(action) -> str:
    try:
        return f"worked: {action()!r}"[:200]
    except Exception as exc:  # noqa: BLE001
        return f"blocked: {type(exc).__name__}"


def sysv(call) -> int:
    """A SysV IPC call through libc; OSError when it fails."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    ident = call(libc)
    if ident < 0:
        raise OSError(ctypes.get_errno(), "SysV IPC call failed")
    return ident


def thread_bomb(tries: int) -> int:
    """How many threads could be started (of `tries`, small stacks so memory is not the limit); all stopped again."""
    release, started = threading.Event(), []
    threading.stack_size(256 * 1024)
    try:
        for _ in range(tries):
            thread = threading.Thread(target=release.wait, daemon=True)
            thread.start()
            started.append(thread)
    except RuntimeError:
        pass
    finally:
        release.set()
        for thread in started:
            thread.join()
        threading.stack_size(0)
    return len(started)


def run_checks(folder: Path) -> dict:
    import gymnasium as gym
    import torch

    env = gym.make("HalfCheetah-v5")
    env.reset(seed=0)
    ipc_before = os.readlink("/proc/self/ns/ipc")
    layers = lock_down(folder, SETTINGS)
    result = {"layers": layers, "uid": os.getuid()}
    result["own_ipc_namespace"] = os.readlink("/proc/self/ns/ipc") != ipc_before
    result["sysv_shm"] = attempt(lambda: sysv(lambda libc: libc.shmget(0x52534833, 4096, 0o1600)))
    result["sysv_msg"] = attempt(lambda: sysv(lambda libc: libc.msgget(0x52534834, 0o1600)))
    result["threads_started"] = thread_bomb(3 * SETTINGS.processes)
    result["socket"] = attempt(socket.socket)
    result["unix_socket"] = attempt(lambda: socket.socket(socket.AF_UNIX))
    result["fork"] = attempt(os.fork)
    result["write_tmp"] = attempt(lambda: open(f"/tmp/rewardsmith-hostile-check-{os.getpid()}", "w"))  # noqa: SIM115
    result["write_inside"] = attempt(lambda: (folder / "inside.txt").write_text("ok"))
    result["parent_environ"] = attempt(lambda: Path(f"/proc/{os.getppid()}/environ").read_bytes())
    result["kill_parent"] = attempt(lambda: os.kill(os.getppid(), 0))
    import resource
    ppid = os.getppid()
    result["prlimit_parent"] = attempt(lambda: resource.prlimit(ppid, resource.RLIMIT_NOFILE, (8, 8)))
    result["prlimit_parent_read"] = attempt(lambda: resource.prlimit(ppid, resource.RLIMIT_NOFILE))
    result["setrlimit_own"] = attempt(lambda: resource.setrlimit(resource.RLIMIT_CPU, resource.getrlimit(resource.RLIMIT_CPU)))
    result["prlimit_own"] = attempt(lambda: resource.prlimit(0, resource.RLIMIT_FSIZE, (1 << 40, 1 << 40)))
    result["renice_parent"] = attempt(lambda: os.setpriority(os.PRIO_PROCESS, ppid, 19))
    result["affinity_parent"] = attempt(lambda: os.sched_setaffinity(ppid, {0}))
    result["getrlimit_own"] = str(resource.getrlimit(resource.RLIMIT_NOFILE))
    out: list[int] = []
    thread = threading.Thread(target=lambda: out.append(int(np.sum(np.arange(10)))))
    thread.start()
    thread.join()
    result["thread"] = out
    torch.set_num_threads(2)
    a = torch.ones(256, 256)
    result["torch"] = float((a @ a).sum())
    steps = 0
    for _ in range(10_000):
        obs, _, terminated, truncated, _ = env.step(env.action_space.sample())
        steps += int(np.isfinite(obs).all())
        if terminated or truncated:
            env.reset()
    result["mujoco_steps"] = steps
    return result


def run_key_checks(folder: Path) -> dict:
    """FOLDER is a candidate folder `<run>/iter_1/cand_1`: a worker there must neither read the run's key nor
    write the parent's proofs."""
    run = folder.parent.parent
    layers = lock_down(folder, SETTINGS)
    return {
        "layers": layers,
        "read_key": attempt(lambda: (run / ".key").read_bytes()),
        "write_proofs": attempt(lambda: open(run / "proofs.jsonl", "a").write("{}")),
        "read_proofs": attempt(lambda: (run / "proofs.jsonl").read_bytes()),
        "write_inside": attempt(lambda: (folder / "analysis.json").write_text("{}")),
    }


def run_gpu_checks(folder: Path) -> dict:
    """Locked down as a GPU training worker (`SandboxSettings.gpu`; no GPU needed): it may start processes (XLA's
    threads made before lock-down start NVIDIA's compiler), but neither it nor a process it starts may execute a file."""

    def fork_then_exec() -> int:
        pid = os.fork()
        if pid == 0:
            try:
                os.execv("/bin/true", ["true"])
            finally:
                os._exit(13)
        return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])

    layers = lock_down(folder, SETTINGS.model_copy(update={"gpu": True}))
    return {
        "layers": layers,
        "exec": attempt(lambda: os.execv("/bin/true", ["true"])),
        "fork_then_exec": attempt(fork_then_exec),
        "socket": attempt(socket.socket),
        "write_tmp": attempt(lambda: open(f"/tmp/rewardsmith-hostile-check-{os.getpid()}", "w")),
        "threads_started": thread_bomb(1000),
    }


def main() -> None:
    mode, folder = sys.argv[2], Path(sys.argv[3])
    checks = {"checks": run_checks, "key": run_key_checks, "gpu": run_gpu_checks}
    if mode not in checks:
        raise SystemExit(f"unknown mode {mode!r}; one of {sorted(checks)}")
    (folder / "result.json").write_text(json.dumps(checks[mode](folder)))


if __name__ == "__main__":
    main()
