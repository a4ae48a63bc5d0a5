"""The calibration-blind gate: where the task's own calibration measured the run's first-rung budget and found it
blind, the first cut ranks by fitness alone, without the screen (adopted on the mountaincar-discrete-reach-flag
pool's converged labels: bench/replay_tables/README.md)."""

from __future__ import annotations

import json

from test_labels import planted_run, rec

from rewardsmith.search import rungs
from rewardsmith.search.halving import Rung
from rewardsmith.task import Calibration, load_task


def calibrated(spec, first_rung: int, first_margin: float | None, stale: str = ""):
    cal = Calibration(
        budget=spec.train.timesteps, first_rung=first_rung, seeds=3, margin_se=8.0, first_rung_margin_se=first_margin,
        calibrated=True, stale=stale,
    )  # fmt: skip
    return spec.model_copy(update={"calibration": cal})


def test_the_gate_reads_the_calibration_at_the_runs_own_first_rung_budget() -> None:
    spec = load_task("mountaincar-discrete-reach-flag")  # shipped: first rung 6,250 steps at -16.36 se
    why = rungs.blind_first_cut(spec, 6250)
    assert why is not None and "6,250 steps blind (-16.36 se" in why and "without" not in why
    assert rungs.blind_first_cut(spec, 12500) is None  # a run at another budget: the calibration says nothing
    assert rungs.blind_first_cut(load_task("acrobot-swing-up"), 3125) is None  # its first rung sees: +4.16 se
    assert rungs.blind_first_cut(calibrated(spec, 6250, 1.99), 6250) is not None
    assert rungs.blind_first_cut(calibrated(spec, 6250, 2.0), 6250) is None
    assert rungs.blind_first_cut(calibrated(spec, 6250, None), 6250) is None  # not measured there
    assert rungs.blind_first_cut(calibrated(spec, 6250, -5.0, stale="with other settings"), 6250) is None
    assert rungs.blind_first_cut(spec.model_copy(update={"calibration": None}), 6250) is None


def test_a_blind_first_cut_gets_no_screen_and_the_run_says_why(tmp_path, monkeypatch) -> None:
    seen = {}

    def halving(todo, train, budgets, **kw):
        seen[budgets[0]] = kw["screen"]
        kw["on_rung"](Rung(index=1, timesteps=budgets[0]))  # halving.json is written with each rung
        return []

    monkeypatch.setattr(rungs, "successive_halving", halving)
    (tmp_path / "task").mkdir()
    run = planted_run(tmp_path, [rec("1.1", 0.5, status="designed"), rec("1.2", 0.4, status="designed")])
    config = run.folder.config().model_copy(update={"screen": True, "timesteps": 16000, "rungs": [0.25, 1.0]})
    executor = type("Executor", (), {"workers": 1})()
    for first_margin in (-3.0, 4.0):
        run.progress.logs.clear()
        spec = calibrated(run.folder.spec(), 4000, first_margin)
        rungs.halve_iteration(run.folder, config, spec, executor, run.progress, 1, run.folder.candidates())
        blind = first_margin < 2
        assert (seen.pop(4000) is None) == blind
        assert any("no screen at the first cut" in line for line in run.progress.logs) == blind
        recorded = json.loads((run.folder.path / "iter_1" / "halving.json").read_text())["first_cut_screen"]
        assert recorded.startswith("no screen at the first cut: calibration found 4,000 steps blind") if blind else recorded == "on"
