"""Child programs for the sandbox tests (run with `python -I tests/sandbox_child.py ROOT MODE ...`).

- reward FOLDER REWARD: lock down (writable FOLDER), load REWARD with the gate off, call it on
  read-only fake states, write FOLDER/result.json.
- checks FOLDER: lock down, try the attacks lockdown must stop, write FOLDER/result.json.
- supervise RESULT ARGV...: the "parent holding keys": run_worker(ARGV), write RESULT json.
"""

from __future__ import annotations

import dataclasses
import json
import os
import socket
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, sys.argv[1])  # the checkout under test (-I ignores PYTHONPATH)

import numpy as np  # noqa: E402 - heavy imports happen before lock_down, as in the worker

from rewardsmith.sandbox.lockdown import SandboxSettings, lock_down  # noqa: E402

SETTINGS = SandboxSettings(memory_mb=2048, cpu_s=120)


def fake_states(n: int) -> list[tuple[np.ndarray, ...]]:
    """HalfCheetah-sized (state, action, next_state) triples, read-only as the worker passes them."""
    from rewardsmith.sandbox.policy import frozen_copy

    rng = np.random.default_rng(0)
    return [(frozen_copy(rng.normal(size=17)), frozen_copy(rng.uniform(-1, 1, size=6)),
             frozen_copy(rng.normal(size=17))) for _ in range(n)]


def run_reward(folder: Path, reward: Path, calls: int = 3) -> dict:
    source = reward.read_text()
    states = fake_states(calls)
    layers = lock_down(folder, SETTINGS)
    from rewardsmith.sandbox.policy import load_reward

    outcomes = []
    try:
        fn = load_reward(source, filename=reward.name, gate=False)
        for state, action, next_state in states:
            start = time.perf_counter()
            try:
                outcomes.append({"returned": repr(fn(state, action, next_state))[:300]})
            except Exception as exc:  # noqa: BLE001 - the record is the point
                outcomes.append({"raised": f"{type(exc).__name__}: {exc}"[:300]})
            outcomes[-1]["seconds"] = time.perf_counter() - start
    except Exception as exc:  # noqa: BLE001
        outcomes.append({"raised": f"load: {type(exc).__name__}: {exc}"[:300]})
    return {"layers": layers, "outcomes": outcomes}


def attempt(action) -> str:
    try:
        return f"worked: {action()!r}"[:200]
    except Exception as exc:  # noqa: BLE001
        return f"blocked: {type(exc).__name__}"


def run_checks(folder: Path) -> dict:
    import gymnasium as gym
    import torch

    env = gym.make("HalfCheetah-v5")
    env.reset(seed=0)
    layers = lock_down(folder, SETTINGS)
    result = {"layers": layers, "uid": os.getuid()}
    result["socket"] = attempt(socket.socket)
    result["unix_socket"] = attempt(lambda: socket.socket(socket.AF_UNIX))
    result["fork"] = attempt(os.fork)
    result["write_tmp"] = attempt(lambda: open(f"/tmp/rewardsmith-hostile-check-{os.getpid()}", "w"))
    result["write_inside"] = attempt(lambda: (folder / "inside.txt").write_text("ok"))
    result["parent_environ"] = attempt(lambda: Path(f"/proc/{os.getppid()}/environ").read_bytes())
    result["kill_parent"] = attempt(lambda: os.kill(os.getppid(), 0))
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


def supervise(result_path: Path, argv: list[str]) -> None:
    from rewardsmith.sandbox.launch import run_worker

    folder = Path(os.environ["SANDBOX_TEST_FOLDER"])
    res = run_worker("test", folder / "job.json", cwd=folder, log_path=result_path.with_suffix(".log"),
                     timeout_s=float(os.environ.get("SANDBOX_TEST_TIMEOUT", "20")), command=argv,
                     extra_env={"HOSTILE_PORT": os.environ.get("HOSTILE_PORT", "0")})
    result_path.write_text(json.dumps(dataclasses.asdict(res)))


def main() -> None:
    mode, args = sys.argv[2], sys.argv[3:]
    if mode == "supervise":
        supervise(Path(args[0]), args[1:])
        return
    folder = Path(args[0])
    result = run_reward(folder, Path(args[1])) if mode == "reward" else run_checks(folder)
    (folder / "result.json").write_text(json.dumps(result))


if __name__ == "__main__":
    main()
