"""ETAs from this run's measured throughput (issue 26): planted timings, no training."""

from __future__ import annotations

from io import StringIO

import pytest
from rich.console import Console

from rewardsmith.search.batch_live import BatchPlain
from rewardsmith.search.eta import Eta, Throughput


class Clock:
    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


def finish_a_job(throughput: Throughput, clock: Clock, who: str, start: float) -> None:
    """A job of 1,100 steps: 4 s to its first 100 steps (the fixed cost), then 1,000 steps in 20 s (50 steps/s)."""
    clock.t = start
    throughput.report(who, "training", 0, 1100)
    clock.t = start + 4
    throughput.report(who, "training", 100, 1100)
    clock.t = start + 24
    assert throughput.report(who, "training", 1100, 1100) is None  # done: nothing left to estimate


def test_the_eta_of_a_job_comes_from_the_finished_jobs_rate_and_fixed_cost():
    clock = Clock()
    throughput = Throughput(clock)
    clock.t = 0
    assert throughput.report("1.1", "training", 0, 1100) is None  # nothing measured yet: no guess
    finish_a_job(throughput, clock, "1.1", 0)
    assert throughput.measured("training") == (pytest.approx(50.0), pytest.approx(4.0), 1)
    clock.t = 30
    assert throughput.report("1.2", "training", 0, 2100) == Eta(pytest.approx(4 + 42), rough=True)  # one job: rough
    throughput.moved("1.2")  # cut before it stepped: measures nothing
    finish_a_job(throughput, clock, "1.3", 40)
    clock.t = 100
    first = throughput.report("1.4", "training", 0, 2100)
    assert first == Eta(pytest.approx(46.0), rough=False) and first.describe() == "ETA 46s"
    clock.t = 102  # still starting: 2 s of the fixed cost are left
    assert throughput.report("1.4", "training", 0, 2100).seconds == pytest.approx(44.0)
    clock.t = 104  # stepping: the rest at the run's rate until its own is measured
    assert throughput.report("1.4", "training", 100, 2100).seconds == pytest.approx(40.0)
    clock.t = 120  # 16 s of its own stepping at 12.5 steps/s (a busier machine now): its own rate wins
    assert throughput.report("1.4", "training", 300, 2100).seconds == pytest.approx(1800 / 12.5)


def test_a_new_rung_or_phase_is_a_new_job():
    clock = Clock()
    throughput = Throughput(clock)
    finish_a_job(throughput, clock, "1.1", 0)
    clock.t = 30
    throughput.report("1.1", "training", 1100, 4400)  # the next rung resumes at 1,100 of 4,400: a new job
    clock.t = 33
    throughput.report("1.1", "training", 1200, 4400)
    clock.t = 38
    throughput.report("1.1", "training", 1700, 4400)
    clock.t = 43
    throughput.report("1.1", "evaluating", 0, 500)  # the state moved on: the rung's training ended
    rate, fixed, jobs = throughput.measured("training")
    assert jobs == 2 and rate == pytest.approx((1000 + 500) / (20 + 10)) and fixed == pytest.approx(3.5)
    assert throughput.measured("evaluating") == (None, None, 0)


def test_eta_describes_itself_as_rough_until_enough_jobs():
    assert Eta(80, rough=True).describe() == "ETA ~1m20s, rough"
    assert Eta(80, rough=False).describe() == "ETA 1m20s"


def test_a_batch_keeps_each_tasks_throughput_apart(monkeypatch):
    """Two tasks of a batch train at very different speeds: one task's finished jobs do not estimate the other's."""
    from rewardsmith.search import eta

    now = [0.0]
    monkeypatch.setattr(eta.time, "monotonic", lambda: now[0])
    buffer = StringIO()
    batch = BatchPlain(Console(file=buffer, width=200))
    fast, slow = batch.task("fast"), batch.task("slow")
    for who in ("1.1", "1.2"):
        fast.update(who, "training", done=0, total=1100)
        now[0] += 4
        fast.update(who, "training", done=100, total=1100)
        now[0] += 20
        fast.update(who, "training", done=1100, total=1100)
        fast.update(who, "rung 1,100", fitness=1.0)
    fast.update("1.3", "training", done=0, total=1100)
    slow.update("1.1", "training", done=0, total=1100)
    lines = buffer.getvalue().splitlines()
    assert lines[-2].endswith("fast 1.3 training 0% (ETA 26s)")  # 4 s fixed + 1,100 steps at 50/s: two jobs measured
    assert lines[-1].endswith("slow 1.1 training 0%")  # nothing of this task measured yet
    assert "ETA 26s" in fast.candidates["1.3"] and "ETA" not in slow.candidates["1.1"]
