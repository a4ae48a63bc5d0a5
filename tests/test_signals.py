"""SIGINT and SIGTERM on a real (scripted, small) `rewardsmith run` and `batch` in a subprocess: workers are stopped,
the folder is marked interrupted within 5 seconds, the command says how to resume and exits 130 / 143."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rewardsmith.run_folder.folder import RunFolder
from rewardsmith.sandbox.launch import worker_pids

DATA = Path(__file__).parent / "data"
TASK = "inverted-double-pendulum-balance"
CLI = [sys.executable, "-c", "from rewardsmith.cli import main; main()"]


def _workers(folder: Path, mode: str | None = None) -> list[int]:
    """Live worker processes (cold or forked) whose job lies under `folder` (optionally only of one mode)."""
    return worker_pids(folder, mode)


def _start(args: list[str], cwd: Path) -> subprocess.Popen:
    env = {**os.environ, "XDG_CACHE_HOME": str(cwd / "cache"), "REWARDSMITH_ALLOW_UID0": "1", "COLUMNS": "200"}
    return subprocess.Popen([*CLI, *args], cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True, text=True)


def _signal_during_training(proc: subprocess.Popen, folder: Path, sig: int) -> tuple[float, str]:
    """Wait until a training worker runs under `folder`, send `sig` to the command's process group (as a
    terminal's Ctrl-C does), and return (seconds until the command exited, its stderr)."""
    deadline = time.monotonic() + 240
    while not _workers(folder, "train"):
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "no training worker started"
        time.sleep(0.2)
    time.sleep(1.0)
    sent = time.monotonic()
    os.killpg(proc.pid, sig)
    try:
        _, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    return time.monotonic() - sent, err


@pytest.mark.parametrize("sig", [pytest.param(signal.SIGTERM),
                                 pytest.param(signal.SIGINT, marks=pytest.mark.slow)], ids=["SIGTERM", "SIGINT"])
def test_run_stops_promptly_on_signal(tiny_spec, tmp_path: Path, sig: int) -> None:
    spec = tiny_spec(TASK, timesteps=500_000, eval_freq=100_000)
    out = tmp_path / "run"
    proc = _start(["run", str(spec), "--iterations", "1", "--samples", "1", "--workers", "1", "--out", str(out),
                   "--model", f"scripted:{DATA / 'loop_e2e.jsonl'}"], tmp_path)
    elapsed, err = _signal_during_training(proc, out, sig)
    assert proc.returncode == 128 + sig, err
    assert elapsed < 5.0, f"took {elapsed:.1f} s"
    assert f"rewardsmith resume {out}" in err
    assert not _workers(out), "a worker outlived the interrupted run"
    folder = RunFolder(out)
    assert folder.status() == "interrupted"
    assert any(e["event"] == "run_interrupted" and e["signal"] == sig.name for e in folder.events())
    assert json.loads((out / "summary.json").read_text())["status"] == "interrupted"


@pytest.mark.slow
def test_batch_stops_promptly_on_sigterm(tiny_spec, tmp_path: Path) -> None:
    spec = tiny_spec(TASK, timesteps=500_000, eval_freq=100_000)
    out = tmp_path / "batch"
    (tmp_path / "tasks.txt").write_text(f"{spec}\n")
    proc = _start(["batch", str(tmp_path / "tasks.txt"), "--iterations", "1", "--samples", "1", "--workers", "1", "--out", str(out),
                   "--model", f"scripted:{DATA / 'loop_e2e.jsonl'}"], tmp_path)
    elapsed, err = _signal_during_training(proc, out, signal.SIGTERM)
    assert proc.returncode == 143, err
    assert elapsed < 5.0, f"took {elapsed:.1f} s"
    assert f"rewardsmith resume {out}" in err
    assert not _workers(out)
    assert json.loads((out / "summary.json").read_text())["status"] == "interrupted"
