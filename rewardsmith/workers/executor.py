"""Executors: the one place that launches worker jobs, so the loop does not care where a candidate runs.

`LocalExecutor` runs up to N sandboxed worker processes at once on this machine; a finished or
failed worker frees its slot at once. Every executor has the same two calls: `submit` and `shutdown`.
"""

from __future__ import annotations

import os
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Protocol

from rewardsmith.workers.job import WorkerJob
from rewardsmith.workers.run import JobResult, ProgressFn, run_job


class Executor(Protocol):
    """Runs worker jobs somewhere and hands back futures of their results."""

    workers: int

    def submit(self, job: WorkerJob, on_progress: ProgressFn | None = None) -> Future[JobResult]: ...

    def shutdown(self) -> None: ...


class LocalExecutor:
    """Up to `workers` sandboxed worker processes at once (one BLAS thread each)."""

    def __init__(self, workers: int | None = None) -> None:
        self.workers = max(1, workers or os.cpu_count() or 1)
        self._pool = ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="rewardsmith-worker")

    def submit(self, job: WorkerJob, on_progress: ProgressFn | None = None) -> Future[JobResult]:
        """Queue a job; it starts as soon as a slot is free."""
        return self._pool.submit(run_job, job, on_progress=on_progress)

    def shutdown(self) -> None:
        """Wait for running jobs and stop."""
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
