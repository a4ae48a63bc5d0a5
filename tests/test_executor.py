"""Executor lanes: a cheap check never queues behind training (issue 11, item 8)."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from rewardsmith.workers import executor as executor_module
from rewardsmith.workers.executor import LocalExecutor
from rewardsmith.workers.job import WorkerJob, lane
from rewardsmith.workers.run import JobResult


def job(mode: str, tmp_path: Path) -> WorkerJob:
    return WorkerJob(mode=mode, task_path=tmp_path / "task.toml", out_dir=tmp_path / mode)


def test_modes_map_to_lanes(tmp_path):
    assert [lane(job(m, tmp_path)) for m in ("train", "video", "critic", "screen", "evaluate", "replay")] == [
        "train", "train", "quick", "quick", "quick", "quick"]


def test_a_critic_check_runs_while_every_training_slot_is_busy(tmp_path, monkeypatch):
    release = threading.Event()
    started: dict[str, float] = {}

    def run_job(job: WorkerJob, on_progress=None) -> JobResult:
        # the scheduling is under test here, so each job only records when it began; training holds its slot
        started[job.mode] = time.monotonic()
        if job.mode == "train":
            assert release.wait(30)
        return JobResult("ok", job.out_dir)

    monkeypatch.setattr(executor_module, "run_job", run_job)
    executor = LocalExecutor(workers=1)
    try:
        training = executor.submit(job("train", tmp_path))
        check = executor.submit(job("critic", tmp_path))
        assert check.result(timeout=10).ok, "the critic check waited behind the training job"
        assert not training.done()
        release.set()
        assert training.result(timeout=10).ok
    finally:
        release.set()
        executor.shutdown()
