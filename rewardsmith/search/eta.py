"""How long a running job has left, from this run's own measured throughput.

A job (a training or an evaluation of one candidate) reports `done` of `total` units (env steps, evaluation
steps) while it runs. `Throughput` keeps, per kind of job, what the jobs finished so far in this run measured: their
units per second once they were stepping, and their fixed cost (from the job's first report to its first unit:
starting the worker, building the envs, loading the policy). A running job's time left is

- before its first unit: the fixed cost still to come (the median of the finished jobs') plus all its units at the
  finished jobs' rate;
- once stepping: its remaining units at its own rate after `OWN_RATE_AFTER_S` seconds of stepping (contention
  changes while a run goes on), before that at the finished jobs' rate.

Until `ENOUGH_JOBS` jobs of its kind have finished the estimate is marked rough; with no finished job and under
`OWN_RATE_AFTER_S` of its own stepping there is none.

    throughput = Throughput()
    eta = throughput.report("1.2", "training", done=512, total=1024)   # -> Eta(seconds=40.0, rough=True) or None
"""

from __future__ import annotations

import statistics
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

ENOUGH_JOBS = 2
"""Finished jobs of a kind after which its ETAs are no longer marked rough."""
OWN_RATE_AFTER_S = 10.0
"""Seconds of stepping after which a job's own rate replaces the finished jobs' rate."""


def clock(seconds: float) -> str:
    """`45s`, `3m05s`, `1h02m`."""
    seconds = max(0, int(seconds))
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"


@dataclass(frozen=True)
class Eta:
    """Seconds left, and whether fewer than `ENOUGH_JOBS` finished jobs stand behind the number."""

    seconds: float
    rough: bool

    def describe(self) -> str:
        """`ETA 1m20s`, or `ETA ~1m20s, rough` while few jobs were measured."""
        return f"ETA ~{clock(self.seconds)}, rough" if self.rough else f"ETA {clock(self.seconds)}"


@dataclass
class _Job:
    kind: str
    total: float
    started: float
    """When the job first reported."""
    done: float
    stepping: float | None = None
    """When `done` first rose above its first report (None before)."""
    step_done: float = 0.0
    """`done` at that moment (the units before it are charged to the fixed cost, their timing unknown)."""


class Throughput:
    """Per kind of job: the units per second and the fixed cost measured on this run's finished jobs (module
    docstring). Thread-safe; `now` is injectable for tests."""

    def __init__(self, now: Callable[[], float] | None = None) -> None:
        self._now = now or (lambda: time.monotonic())
        self._lock = threading.Lock()
        self._open: dict[tuple[str, str], _Job] = {}
        self._rates: dict[str, list[tuple[float, float]]] = {}
        self._fixed: dict[str, list[float]] = {}

    def report(self, who: str, kind: str, done: float, total: float) -> Eta | None:
        """Job `who` (a candidate) of `kind` has done `done` of `total`; returns its time left, or None while
        nothing measures it (and once it is done). A report of another kind for `who`, or a new total, ends the job
        before."""
        now = self._now()
        with self._lock:
            self._end(who, keep=kind, now=now)
            job = self._open.get((who, kind))
            if job is None or job.total != total or done < job.done:
                if job is not None:
                    self._finish((who, kind), now)
                job = self._open[(who, kind)] = _Job(kind, total, now, done, step_done=done)
            if job.stepping is None and done > job.done:  # the first units: the fixed cost is behind it
                job.stepping, job.step_done = now, done
            job.done = done
            if done >= total:
                self._finish((who, kind), now)
                return None
            return self._eta(job, now)

    def moved(self, who: str) -> None:
        """`who` went on to something without progress counts (a result, a cut): its jobs have ended."""
        with self._lock:
            self._end(who, keep=None, now=self._now())

    def measured(self, kind: str) -> tuple[float | None, float | None, int]:
        """(units per second, median fixed cost in seconds, finished jobs) of `kind` so far."""
        with self._lock:
            return self._rate(kind), self._fixed_cost(kind), len(self._rates.get(kind, []))

    def _end(self, who: str, keep: str | None, now: float) -> None:
        for key in [k for k in self._open if k[0] == who and k[1] != keep]:
            self._finish(key, now)

    def _finish(self, key: tuple[str, str], now: float) -> None:
        job = self._open.pop(key)
        if job.stepping is None or now - job.stepping <= 0 or job.done <= job.step_done:
            return  # never stepped (failed or cut at once): measures nothing
        self._rates.setdefault(job.kind, []).append((job.done - job.step_done, now - job.stepping))
        self._fixed.setdefault(job.kind, []).append(job.stepping - job.started)

    def _rate(self, kind: str) -> float | None:
        units = sum(u for u, _ in self._rates.get(kind, []))
        seconds = sum(s for _, s in self._rates.get(kind, []))
        return units / seconds if units > 0 and seconds > 0 else None

    def _fixed_cost(self, kind: str) -> float | None:
        fixed = self._fixed.get(kind)
        return statistics.median(fixed) if fixed else None

    def _rough(self, kind: str) -> bool:
        return len(self._rates.get(kind, [])) < ENOUGH_JOBS

    def _eta(self, job: _Job, now: float) -> Eta | None:
        left = job.total - job.done
        run_rate = self._rate(job.kind)
        if job.stepping is not None and now - job.stepping >= OWN_RATE_AFTER_S:
            own = (job.done - job.step_done) / (now - job.stepping)
            if own > 0:
                return Eta(left / own, self._rough(job.kind))
        if run_rate is None:
            return None
        fixed = 0.0
        if job.stepping is None:
            fixed = max(0.0, (self._fixed_cost(job.kind) or 0.0) - (now - job.started))
        return Eta(fixed + left / run_rate, self._rough(job.kind))
