"""Executors: the one place that launches worker jobs, so the loop does not care where a candidate runs.

`LocalExecutor` runs up to N sandboxed worker processes at once on this machine; a finished or
failed worker frees its slot at once. Cheap checks (critic, screen and evaluation jobs, seconds each) have
their own lane, so they never queue behind hour-long trainings: a repaired candidate's critic check starts
at once even while every training slot is busy. Every executor has the same two calls: `submit` and `shutdown`.
"""

from __future__ import annotations

import os
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Protocol

from rewardsmith.workers.job import WorkerJob, lane
from rewardsmith.workers.run import JobResult, ProgressFn, run_job


class Executor(Protocol):
    """Runs worker jobs somewhere and hands back futures of their results."""

    workers: int

    def submit(self, job: WorkerJob, on_progress: ProgressFn | None = None) -> Future[JobResult]: ...

    def shutdown(self) -> None: ...


class LocalExecutor:
    """Up to `workers` sandboxed training (and video) processes at once, one BLAS thread each, plus up to
    `quick_workers` cheap checks in their own lane (default: as many as `workers`)."""

    def __init__(self, workers: int | None = None, quick_workers: int | None = None) -> None:
        self.workers = max(1, workers or os.cpu_count() or 1)
        self.quick_workers = max(1, quick_workers or self.workers)
        self._pool = ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="rewardsmith-worker")
        self._quick = ThreadPoolExecutor(max_workers=self.quick_workers, thread_name_prefix="rewardsmith-quick")

    def submit(self, job: WorkerJob, on_progress: ProgressFn | None = None) -> Future[JobResult]:
        """Queue a job in its lane; it starts as soon as a slot of that lane is free."""
        pool = self._quick if lane(job) == "quick" else self._pool
        return pool.submit(run_job, job, on_progress=on_progress)

    def shutdown(self) -> None:
        """Wait for running jobs and stop."""
        self._quick.shutdown(wait=True, cancel_futures=True)
        self._pool.shutdown(wait=True, cancel_futures=True)


def make_executor(kind: str = "local", workers: int | None = None, **options) -> Executor:
    """An executor by name: "local" (default) or "ray" (`ray_address` optional)."""
    if kind == "local":
        return LocalExecutor(workers)
    if kind == "ray":
        from rewardsmith.workers.ray_executor import RayExecutor

        return RayExecutor(workers, **options)
    from rewardsmith.errors import RewardsmithError

    raise RewardsmithError(f"unknown executor {kind!r}: use 'local' or 'ray'")
