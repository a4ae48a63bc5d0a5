"""docs/calibration.md's table of every shipped task is the specs' `[calibration]` tables, generated, not typed."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from rewardsmith.cli.calibrate import calibration_table
from rewardsmith.search.calibration import first_rung
from rewardsmith.task import ENVS_DIR, Calibration, list_tasks, load_task

BENCH = Path(__file__).resolve().parents[1] / "bench" / "calibration_table.py"


def table_script():
    spec = importlib.util.spec_from_file_location("calibration_table", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_docs_table_matches_the_specs() -> None:
    script = table_script()
    text = script.DOC.read_text(encoding="utf-8")
    table = calibration_table(list_tasks(ENVS_DIR))
    assert script.with_table(text, table) == text, "docs/calibration.md is stale: run python bench/calibration_table.py"
    rows = [line for line in table.splitlines()[2:]]
    assert [row.split(" | ")[0].strip("| ") for row in rows] == [spec.name for spec in list_tasks(ENVS_DIR)]


def test_every_shipped_calibration_measured_todays_example() -> None:
    """An example edited after its calibration (as ant-spin's was) leaves a record that describes another reward:
    each record carries the fingerprint of the file it measured, and it must be today's example."""
    from rewardsmith.search.calibration import fingerprint

    checked = 0
    for spec in list_tasks(ENVS_DIR):
        if spec.calibration is None:
            continue
        example = ENVS_DIR / "examples" / f"{spec.name.replace('-', '_')}.py"
        assert spec.calibration.reward_sha == fingerprint(example), (
            f"{spec.name}: its example changed since it was calibrated: run `rewardsmith calibrate {spec.name} "
            "--write-spec`, or remove its [calibration] table"
        )
        checked += 1
    assert checked >= 13


def test_every_shipped_calibration_measured_todays_training_settings() -> None:
    """Settings that change what a training learns (envs, batch, epochs, networks), changed after a calibration,
    leave a record that describes another learner: each record carries their fingerprint, and it must be today's."""
    checked = 0
    for spec in list_tasks(ENVS_DIR):
        if spec.calibration is None:
            continue
        assert spec.calibration.train_sha == spec.train.learning_fingerprint(), (
            f"{spec.name}: its [train] settings changed since it was calibrated: run `rewardsmith calibrate "
            f"{spec.name} --write-spec`, or remove its [calibration] table"
        )
        checked += 1
    assert checked >= 13


def test_a_row_says_calibrated_uncalibrated_stale_or_needs_a_longer_budget() -> None:
    spec = load_task("hopper-hop").model_copy(update={"calibration": None})
    (row,) = calibration_table([spec]).splitlines()[2:]
    assert f"| 200,000 | {first_rung(spec):,} | - |" in row and "no (uncalibrated; ~" in row and "CPU-h to calibrate)" in row
    measured = Calibration(budget=200_000, first_rung=12_500, seeds=3, good=[0.5, 0.05], weak=[0.1, 0.02],
                           weak_references=["alive", "effort"], random=[0.0, 0.001], margin_se=7.4,
                           first_rung_margin_se=0.3, calibrated=True, wall_s=1800.0)
    (row,) = calibration_table([spec.model_copy(update={"calibration": measured})]).splitlines()[2:]
    assert row == ("| hopper-hop | 200,000 | 12,500 | 0.5 ± 0.05 | 0.1 ± 0.02 (alive, effort) | 0 ± 0.001 "
                   "| +7.4 se (+0.3 se) | yes | 30 min, 3 seeds |")
    longer = measured.model_copy(update={"calibrated": False, "margin_se": 0.4, "smallest_budget": 800_000})
    (row,) = calibration_table([spec.model_copy(update={"calibration": longer})]).splitlines()[2:]
    assert "| no (800,000 steps separate) |" in row
    level = measured.model_copy(update={"first_rung_margin_se": 0.0})  # all arms equal at the first rung
    assert "| +7.4 se (+0.0 se) |" in calibration_table([spec.model_copy(update={"calibration": level})])
    blind = longer.model_copy(update={"smallest_budget": None})
    (row,) = calibration_table([spec.model_copy(update={"calibration": blind})]).splitlines()[2:]
    assert "| no (needs GPU or long budget) |" in row
    stale = measured.model_copy(update={"budget": 100_000})
    (row,) = calibration_table([spec.model_copy(update={"calibration": stale})]).splitlines()[2:]
    assert "no (stale: measured at 100,000 steps;" in row
