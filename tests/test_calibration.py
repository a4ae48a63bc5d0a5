"""Calibration: the good-vs-weak-vs-random arithmetic, the spec's [calibration] table, the run-time "nothing learned
enough" verdict on planted fitness tables, and one tiny real calibration (slow)."""

from __future__ import annotations

import json
import math
import re
import shutil
from pathlib import Path

import numpy as np
import pytest

from rewardsmith.cost import default_cost
from rewardsmith.run_folder.records import CandidateRecord, Evaluation
from rewardsmith.search.calibration import (
    BudgetRow,
    CalibrationReport,
    budget_ladder,
    first_rung,
    gap_in_se,
    learning_signal,
    weak_reward,
    write_spec_calibration,
)
from rewardsmith.task import ENVS_DIR, Calibration, load_task, read_task


def record(cid: str, fitness: float, se: float, timesteps: int = 16_384, status: str = "trained") -> CandidateRecord:
    iteration, index = (int(x) for x in cid.split("."))
    return CandidateRecord(id=cid, iteration=iteration, index=index, status=status, fitness=fitness, fitness_se=se,
                           episodes=10, timesteps=timesteps)


def random_eval(mean: float, se: float) -> Evaluation:
    return Evaluation.model_validate({"fitness": [mean] * 10, "fitness_mean": mean, "fitness_se": se,
                                      "success": [False] * 10, "seeds": list(range(10))})


def test_gap_in_se_is_welchs_and_handles_exact_values() -> None:
    assert gap_in_se([1.0, 3.0], [0.0, 0.0]) == pytest.approx(2.0 / 1.0)  # se of [1, 3] is 1
    assert gap_in_se([1.0, 1.0], [0.0, 0.0]) == math.inf
    assert gap_in_se([1.0, 1.0], [1.0, 1.0]) == 0.0


def test_a_budget_is_calibrated_only_when_good_beats_the_stronger_reference() -> None:
    row = BudgetRow(budget=1000, good=[2.0, 2.2, 1.8], weak={"alive": [0.1, 0.2, 0.0], "effort": [1.9, 2.1, 1.7]},
                    random=[0.0, 0.01, -0.01])
    assert row.strongest_weak[0] == "effort"  # the stronger weak reference is the bar
    assert row.good_vs_random > 10 and row.good_vs_weak < 2
    assert not row.calibrated(2.0)
    clear = row.model_copy(update={"weak": {"alive": [0.1, 0.2, 0.0], "effort": [0.0, 0.05, -0.05]}})
    assert clear.calibrated(2.0) and clear.margin == pytest.approx(clear.good_vs_weak)


def test_the_report_names_the_smallest_budget_that_separates_and_records_it() -> None:
    noisy = BudgetRow(budget=1024, good=[0.1, 0.5, -0.2], weak={"effort": [0.2, 0.0, 0.1]}, random=[0.0, 0.1, -0.1])
    clear = BudgetRow(budget=16_384, good=[2.0, 2.1, 1.9], weak={"effort": [0.2, 0.0, 0.1]}, random=[0.0, 0.1, -0.1])
    report = CalibrationReport(task="t", reward="r.py", seeds=3, episodes=5, search_budget=16_384, first_rung=1024,
                               rows=[noisy, clear])
    assert report.smallest_budget == 16_384
    spec_record = report.spec_record()
    assert spec_record.calibrated and spec_record.margin_se and spec_record.margin_se > 2
    assert spec_record.first_rung_margin_se is not None and spec_record.first_rung_margin_se < 2
    assert spec_record.good[0] == pytest.approx(2.0)
    assert spec_record.episodes == 5  # how many evaluation episodes each training's fitness is the mean of
    assert spec_record.status(16_384).startswith("calibrated")
    assert "not at today's" in spec_record.status(32_768)  # a changed search budget makes the record stale


def test_the_ladder_starts_at_the_first_rung_and_doubles_up_to_the_limit() -> None:
    spec = load_task("hopper-hop")
    assert first_rung(spec) == 50_000  # the MuJoCo family's measured 1/4 of 200k, above one 512-step rollout
    assert budget_ladder(spec, 200_000, 4.0) == [50_000, 200_000, 400_000, 800_000]
    assert budget_ladder(spec, 200_000, 1.0) == [50_000, 200_000]
    assert first_rung(load_task("metaworld-reach"), 100_000) == 6_250  # no evidence there: the old 1/16


def test_the_calibration_table_is_written_into_the_spec_and_read_back(tmp_path: Path) -> None:
    spec_file = tmp_path / "hopper-hop.toml"
    shutil.copy(ENVS_DIR / "hopper-hop.toml", spec_file)
    for module in ENVS_DIR.glob("*.py"):
        shutil.copy(module, tmp_path / module.name)
    spec_file.write_text(spec_file.read_text().split("[calibration]")[0])  # the shipped spec's own record, if any
    before = spec_file.read_text()
    first = Calibration(budget=200_000, first_rung=12_500, seeds=3, episodes=20, good=[0.5, 0.05], weak=[0.1, 0.02],
                        random=[0.0, 0.001], margin_se=7.4, calibrated=True, smallest_budget=200_000, measured="x")
    write_spec_calibration(spec_file, first)
    assert spec_file.read_text().startswith(before.rstrip())  # the rest of the file is kept as it was
    assert read_task(spec_file).calibration == first
    second = first.model_copy(update={"calibrated": False, "margin_se": 0.4, "smallest_budget": None})
    write_spec_calibration(spec_file, second)  # replaces the table, does not add a second one
    assert spec_file.read_text().count("[calibration]") == 1
    spec = read_task(spec_file)
    assert spec.calibration == second and spec.calibration_status().startswith("needs GPU or long budget")


def test_nothing_learned_is_said_instead_of_a_winner() -> None:
    spec = load_task("hopper-hop").model_copy(update={"calibration": None})
    records = [record("1.0", 0.010, 0.004), record("1.1", 0.002, 0.003), record("1.2", 0.5, 0.1, timesteps=1024)]
    signal = learning_signal(records, random_eval(0.004, 0.002), spec)
    assert signal.verdict == "nothing_learned" and signal.budget == 16_384
    assert "no candidate learned enough to be judged at 16,384 steps" in signal.message
    assert "rewardsmith calibrate hopper-hop" in signal.message  # no calibration yet: it names the command
    assert "none beats the random policy (0.004) by 2 standard errors" in signal.message
    assert "below it" not in signal.message  # 1.0 scores above random, by less than 2 standard errors
    far_below = learning_signal([record("1.0", 0.015, 0.001), record("1.1", 0.02, 0.001)], random_eval(0.22, 0.02), spec)
    assert far_below.verdict == "nothing_learned" and "and every one scores below it" in far_below.message


def test_the_advice_on_a_users_own_spec_names_a_command_that_finds_it(tmp_path) -> None:
    """A spec outside envs/ is not found by its name: the advice names its path (it named `rewardsmith calibrate
    cartpole-balance`, which answered "unknown task")."""
    own = tmp_path / "my-hop.toml"
    own.write_text(load_task("hopper-hop").source.read_text().replace('name = "hopper-hop"', 'name = "my-hop"'))
    spec = read_task(own).model_copy(update={"calibration": None})
    signal = learning_signal([record("1.0", 0.010, 0.004)], random_eval(0.004, 0.002), spec)
    assert f"`rewardsmith calibrate {own} --reward REWARD.py --write-spec` measures" in signal.message


def test_a_calibrated_spec_suggests_its_budget() -> None:
    spec = load_task("hopper-hop")
    spec = spec.model_copy(update={"calibration": Calibration(budget=200_000, smallest_budget=400_000)})
    signal = learning_signal([record("1.0", 0.01, 0.01)], random_eval(0.0, 0.01), spec)
    assert signal.verdict == "nothing_learned" and signal.suggested_budget == 400_000
    assert "400,000 steps separate" in signal.message


def test_a_budget_the_calibration_found_enough_blames_the_rewards_not_the_budget() -> None:
    """cartpole-hold-right separates at its 100,000 steps (+8.0 se): a run whose candidates learned nothing there was
    told to calibrate it again."""
    spec = load_task("cartpole-hold-right")
    signal = learning_signal([record("1.0", 0.0, 0.0, timesteps=100_096)], random_eval(0.0, 0.0), spec)
    assert signal.verdict == "nothing_learned" and "rewardsmith calibrate" not in signal.message
    assert "100,000 steps enough for this task's example reward to beat weak ones (+8.0 se)" in signal.message
    assert "these rewards, not the budget" in signal.message


def test_a_run_below_the_calibrated_budget_is_told_that_budget() -> None:
    """inverted-double-pendulum-balance is calibrated at 100,000 steps and separated already at its 6,250-step first
    rung; the README's quick start trains 20,480 steps, and was told to calibrate (at the spec's 100,000)."""
    spec = load_task("inverted-double-pendulum-balance")
    records = [record("1.0", 0.03, 0.01, timesteps=20_480), record("1.1", 0.03, 0.01, timesteps=20_480)]
    signal = learning_signal(records, random_eval(0.004, 0.001), spec)
    assert signal.verdict == "indistinguishable" and signal.suggested_budget == 100_000
    assert "calibration found that 100,000 steps separate a good reward from a weak one" in signal.message


def test_peers_within_noise_of_each_other_are_called_indistinguishable() -> None:
    spec = load_task("hopper-hop")
    records = [record("1.0", 1.00, 0.2), record("1.1", 0.80, 0.2), record("2.0", 0.9, 0.3)]
    signal = learning_signal(records, random_eval(0.0, 0.01), spec)
    assert signal.verdict == "indistinguishable" and "3 candidates" in signal.message


def test_a_clear_leader_over_random_and_peers_is_learned() -> None:
    spec = load_task("hopper-hop")
    records = [record("1.0", 2.0, 0.1), record("1.1", 0.5, 0.1), record("2.0", 0.2, 0.1, status="rejected")]
    assert learning_signal(records, random_eval(0.0, 0.01), spec).verdict == "learned"
    assert learning_signal(records, None, spec).verdict == "learned"  # no random reference: peers only
    assert learning_signal([], None, spec).verdict == "unknown"


def test_tasks_lists_one_line_per_task_grouped_by_family(cli) -> None:
    code, out, _ = cli("tasks")
    assert code == 0
    lines = out.splitlines()
    assert len(lines) <= 40  # one screen
    assert "MuJoCo locomotion and control" in lines and "Meta-World manipulation" in lines
    hop = load_task("hopper-hop").calibration
    status = hop.short_status(200_000).split(" se")[0] if hop else "uncalibrated"  # a long status wraps after it
    hours = default_cost(load_task("hopper-hop"))[1]  # its PPO settings: well under an hour (rewardsmith.cost)
    assert hours < 1
    assert any(line.split()[:2] == ["hopper-hop", f"~{hours:.1f}"] and status in line for line in lines)
    code, out, _ = cli("tasks", "--long")
    assert code == 0 and "Make the hopper hop forward" in out and "M steps" in out


def test_calibrate_needs_a_good_reward(cli, tmp_path: Path) -> None:
    spec = tmp_path / "t.toml"
    shutil.copy(ENVS_DIR / "hopper-hop.toml", spec)
    code, _, err = cli("calibrate", spec, "--out", tmp_path / "c")
    assert code == 2 and "has no example reward" in err and "--reward" in err
    code, _, err = cli("calibrate", "hopper-hop", "--weak", "alive,lazy", "--reward", spec)
    assert code == 2 and "--weak takes alive, effort" in err


@pytest.mark.slow
def test_calibrate_trains_every_arm_and_resumes(cli, tiny_spec, tmp_path: Path) -> None:
    spec = tiny_spec("inverted-double-pendulum-balance", timesteps=2048, eval_episodes=2,
                     hyperparams={"n_steps": 256, "batch_size": 64, "n_epochs": 1})
    example = ENVS_DIR / "examples" / "inverted_double_pendulum_balance.py"
    out = tmp_path / "calib"
    args = ("calibrate", spec, "--reward", example, "--seeds", "2", "--up-to", "1", "--out", out, "--workers", "2")
    code, stdout, err = cli(*args, "--write-spec")
    assert code == 0, stdout + err
    saved = json.loads((out / "calibration.json").read_text())
    assert [row["budget"] for row in saved["rows"]] == [1024, 2048]  # the first rung (MIN_RUNG_STEPS) and the budget
    row = saved["rows"][-1]
    assert len(row["good"]) == 2 and set(row["weak"]) == {"alive", "effort"} and len(row["random"]) == 4
    assert "smallest budget that separates" in stdout
    assert "CPU-h of training for the first rung and the search budget" in stdout and "on 2 workers" in stdout
    recorded = read_task(spec).calibration
    assert recorded is not None and recorded.budget == 2048 and recorded.seeds == 2
    mtime = (out / "calibration.json").stat().st_mtime
    code, stdout, err = cli(*args)  # every row is there: nothing is trained again
    assert code == 0, stdout + err and (out / "calibration.json").stat().st_mtime == mtime


def test_a_run_is_told_when_its_budget_is_not_calibrated() -> None:
    spec = load_task("hopper-hop").model_copy(update={"calibration": None})
    assert "uncalibrated" in (spec.calibration_note(200_000) or "")
    measured = Calibration(budget=200_000, calibrated=False, margin_se=0.4, smallest_budget=800_000)
    spec = spec.model_copy(update={"calibration": measured})
    assert "800,000 steps (not 200,000)" in (spec.calibration_note(200_000) or "")
    assert spec.calibration_note(800_000) is None  # the run asked for a budget that separates
    spec = spec.model_copy(update={"calibration": Calibration(budget=200_000, calibrated=True, margin_se=5.0)})
    assert spec.calibration_note(200_000) is None
    # only a shorter budget (the first rung) separated: the search budget's ranking may still be noise
    shorter = Calibration(budget=200_000, calibrated=False, margin_se=0.6, smallest_budget=50_000)
    spec = spec.model_copy(update={"calibration": shorter})
    note = spec.calibration_note(200_000) or ""
    assert "50,000 steps separate, the search budget does not" in note and "ranking may be noise" in note
    assert "longer" not in shorter.status(200_000)


def test_a_calibration_measured_with_other_training_settings_is_stale(tmp_path: Path) -> None:
    """A spec whose learner settings changed after its calibration (say more envs, another batch) no longer has the
    margin its record shows: the record is stale everywhere it is read, as for another budget."""
    from rewardsmith.cli.calibrate import calibration_table
    from rewardsmith.search.spread import prior_sd

    for module in ENVS_DIR.glob("*.py"):
        shutil.copy(module, tmp_path / module.name)
    spec_file = tmp_path / "hopper-hop.toml"
    shipped = (ENVS_DIR / "hopper-hop.toml").read_text()
    spec_file.write_text(shipped.replace("eval_freq = 20_000", "eval_freq = 10_000"))  # changes nothing learned
    spec = read_task(spec_file)
    assert spec.calibration is not None and spec.calibration.train_sha and not spec.calibration.stale
    assert "other training settings" not in spec.calibration_status() and prior_sd(spec) is not None
    assert "n_envs = 8 " in shipped
    spec_file.write_text(shipped.replace("n_envs = 8 ", "n_envs = 4 "))
    spec = read_task(spec_file)
    cal = spec.calibration
    assert cal is not None and cal.stale and not cal.current(200_000) and not cal.separates_at(10**9)
    assert cal.short_status(200_000) == "stale calibration"
    assert spec.calibration_status() == (
        "calibrated with other training settings than the spec's now: run `rewardsmith calibrate`"
    )
    note = spec.calibration_note(200_000) or ""
    assert "other training settings" in note and "ranking may be noise" in note
    assert prior_sd(spec) is None  # its seed spread measured another learner
    assert "stale: measured with other training settings" in calibration_table([spec])
    longer = spec.model_copy(update={"calibration": cal.model_copy(update={"smallest_budget": 400_000})})
    signal = learning_signal([record("1.0", 0.01, 0.01)], random_eval(0.0, 0.01), longer)
    assert signal.suggested_budget is None  # 400,000 steps separated another learner's rewards
    assert "calibration found" not in signal.message and f"rewardsmith calibrate {spec_file}" in signal.message
    write_spec_calibration(spec_file, cal.model_copy(update={"train_sha": spec.train.learning_fingerprint()}))
    assert "stale" not in spec_file.read_text().split("[calibration]")[1]  # why it was stale is not a field to keep
    assert not read_task(spec_file).calibration.stale  # measured again with today's settings: current


def test_indistinguishable_uses_the_seed_floor_not_the_evaluation_error_alone(tmp_path: Path) -> None:
    """The issue's case: the same reward trained twice scored 2.057 and 0.651. Against the evaluation errors alone
    (0.05 each) a 1.5 rival is far behind the 2.057 leader; with the measured between-seed floor it is not."""
    from rewardsmith.search.evidence import Evidence
    from rewardsmith.search.spread import Repeat, SeedSpread

    spec = load_task("hopper-hop")
    records = [record("1.0", 2.057, 0.05), record("1.1", 1.5, 0.05), record("1.2", 0.3, 0.05, timesteps=1024)]
    assert learning_signal(records, random_eval(0.0, 0.01), spec).verdict == "learned"  # evaluation noise only
    spread = SeedSpread(path=tmp_path / "seed_spread.json")
    spread.add(Repeat("1.0", 16_384, (0, 1), (2.057, 0.651), (0.05, 0.05)))
    signal = learning_signal(records, random_eval(0.0, 0.01), spec, evidence=Evidence(spread))
    assert signal.verdict == "indistinguishable" and signal.budget == 16_384
    assert "seed sd 0.993 (measured: 1 candidate x 2 seeds)" in signal.message
    # the floor of another budget does not apply; a prior measured at this budget does
    other = SeedSpread([Repeat("1.0", 1024, (0, 1), (2.057, 0.651), (0.05, 0.05))])
    assert learning_signal(records, None, spec, evidence=Evidence(other)).verdict == "learned"
    prior = learning_signal(records, None, spec, evidence=Evidence(SeedSpread(prior=0.5, prior_budget=16_384)))
    assert prior.verdict == "indistinguishable" and "prior" in prior.message
    # a lead larger than the floor is still a lead
    far = [record("2.0", 6.0, 0.05), record("2.1", 1.5, 0.05)]
    assert learning_signal(far, None, spec, evidence=Evidence(spread)).verdict == "learned"


class NoTraining:
    """An executor that fails any job: what it is handed must already have been measured."""

    workers = 1

    def submit(self, job, on_progress=None):
        raise AssertionError(f"trained again: {job.out_dir}")

    def shutdown(self) -> None:
        pass


def test_a_cut_short_row_resumes_training_by_training(tmp_path: Path) -> None:
    from rewardsmith.files import write_json_atomic
    from rewardsmith.search.calibration import DONE_FILE, WEAK_REWARDS, calibrate, fingerprint

    spec = load_task("hopper-hop")
    good = tmp_path / "good.py"
    shutil.copy(ENVS_DIR / "examples" / "hopper_hop.py", good)
    work = tmp_path / "calib"
    work.mkdir()
    (work / "weak_effort.py").write_text(WEAK_REWARDS["effort"])
    rung_steps = first_rung(spec, 200_000)  # the family's first rung (rewardsmith.search.rung_evidence)
    rung = BudgetRow(budget=rung_steps, good=[0.1, 0.2], weak={"effort": [0.0, 0.1]}, random=[0.0] * 10, wall_s=60.0)
    saved = CalibrationReport(task=spec.name, reward=str(good), seeds=2, episodes=5, search_budget=200_000,
                              first_rung=rung_steps, inputs=fingerprint(good, spec.source), rows=[rung])
    write_json_atomic(work / "calibration.json", saved.model_dump(mode="json"))  # the first rung finished
    finished = {("good", good): [1.0, 1.2], ("effort", work / "weak_effort.py"): [0.1, 0.0]}
    for (arm, reward), values in finished.items():  # every training of the search budget finished, its row did not
        for seed, value in enumerate(values):
            key = {"reward": str(reward), "inputs": fingerprint(reward, spec.source), "steps": 200_000, "seed": seed,
                   "episodes": 5}
            done = {"key": key, "fitness_mean": value, "wall_s": 100.0}
            write_json_atomic(work / "t200000" / arm / f"seed_{seed}" / DONE_FILE, done)
    heard: list[str] = []  # each training as it ends: a search budget's row can take hours to print
    report = calibrate(spec, good, work, NoTraining(), seeds=2, episodes=5, up_to=1.0, weak=("effort",),
                       on_training=heard.append)
    row = report.row(200_000)
    assert row is not None and row.good == [1.0, 1.2] and row.weak == {"effort": [0.1, 0.0]}
    assert any(line.startswith("200,000 steps: effort seed 0: fitness 0.1 (trained before this resume; ") for line in heard)
    assert len(heard) == 4 and heard[-1].endswith("4 of 4)")
    assert 400.0 <= row.wall_s < 410.0  # the trainings' own wall time, measured by the process that ran them
    other = key | {"episodes": 10}  # a training measured with other settings is not taken for this one
    write_json_atomic(work / "t200000" / "effort" / "seed_1" / DONE_FILE, {"key": other, "fitness_mean": 0.0})
    (work / "calibration.json").unlink()
    write_json_atomic(work / "calibration.json", saved.model_dump(mode="json"))
    with pytest.raises(AssertionError, match="trained again: .*effort/seed_1"):
        calibrate(spec, good, work, NoTraining(), seeds=2, episodes=5, up_to=1.0, weak=("effort",))
    # the reward edited at the same path (as ant-spin's example was): no row measured on the old text is kept, so it
    # starts again from the random policy's evaluation, and the good reward's finished trainings are not taken either
    good.write_text(good.read_text() + "\n# edited\n")
    with pytest.raises(AssertionError, match="trained again: .*calib/random"):
        calibrate(spec, good, work, NoTraining(), seeds=2, episodes=5, up_to=1.0, weak=("effort",))
    report = saved.model_copy(update={"inputs": fingerprint(good, spec.source)})
    write_json_atomic(work / "calibration.json", report.model_dump(mode="json"))
    with pytest.raises(AssertionError, match="trained again: .*t200000/good/seed_0"):
        calibrate(spec, good, work, NoTraining(), seeds=2, episodes=5, up_to=1.0, weak=("effort",))


def test_a_calibration_on_another_backend_keeps_nothing_measured_on_the_spec_s(tmp_path: Path) -> None:
    """`calibrate --backend mjx` measures another learner: the spec's backend's rows and trainings are not its."""
    from rewardsmith.files import write_json_atomic
    from rewardsmith.search.calibration import DONE_FILE, calibrate, fingerprint

    spec = load_task("hopper-hop")
    good = tmp_path / "good.py"
    shutil.copy(ENVS_DIR / "examples" / "hopper_hop.py", good)
    work = tmp_path / "calib"
    rung_steps = first_rung(spec, 200_000)
    rows = [BudgetRow(budget=b, good=[0.1, 0.2], weak={"effort": [0.0, 0.1]}, random=[0.0] * 10)
            for b in (rung_steps, 200_000)]
    saved = CalibrationReport(task=spec.name, reward=str(good), seeds=2, episodes=5, search_budget=200_000,
                              first_rung=rung_steps, inputs=fingerprint(good, spec.source), rows=rows)
    write_json_atomic(work / "calibration.json", saved.model_dump(mode="json"))
    report = calibrate(spec, good, work, NoTraining(), seeds=2, episodes=5, up_to=1.0, weak=("effort",))
    assert report.row(200_000) is not None  # the spec's backend again: every row kept
    with pytest.raises(AssertionError, match="trained again: .*calib/random"):
        calibrate(spec, good, work, NoTraining(), seeds=2, episodes=5, up_to=1.0, weak=("effort",), backend="mjx")
    write_json_atomic(work / "calibration.json", saved.model_copy(update={"backend": "mjx", "rows": rows[:1]})
                      .model_dump(mode="json"))
    key = {"reward": str(good), "inputs": fingerprint(good, spec.source), "steps": 200_000, "seed": 0, "episodes": 5}
    write_json_atomic(work / "t200000" / "good" / "seed_0" / DONE_FILE, {"key": key, "fitness_mean": 1.0})
    with pytest.raises(AssertionError, match="trained again: .*t200000/good/seed_0"):  # trained on the spec's backend
        calibrate(spec, good, work, NoTraining(), seeds=2, episodes=5, up_to=1.0, weak=("effort",), backend="mjx")


def test_an_arm_that_fell_back_to_the_cpu_stops_a_calibration_on_mjx(tmp_path: Path, monkeypatch) -> None:
    from rewardsmith.search import calibration
    from rewardsmith.workers.run import JobResult

    fallback = {"from": "mjx", "to": "sb3", "why": "untraceable: `sorted` of values", "wall_s": 3.0}
    trained: list[dict] = []

    def fake_training(spec_path, reward_path, out_dir, *, options, **_):
        trained.append(options)
        used = "sb3" if "weak" not in Path(reward_path).name and options.get("backend") == "mjx" else "mjx"
        summary = {"backend": used} | ({"backend_fallback": fallback} if used == "sb3" else {})
        return JobResult("ok", out_dir, summary=summary), random_eval(0.5, 0.1)

    monkeypatch.setattr(calibration, "train_and_evaluate", fake_training)
    monkeypatch.setattr(calibration, "random_fitness", lambda *a: [0.0, 0.1, 0.0, 0.1])
    spec = load_task("walker2d-one-leg")
    good = ENVS_DIR / "examples" / "walker2d_one_leg.py"
    with pytest.raises(Exception, match="on mjx: good seed 0 .*trained on sb3 instead of mjx: untraceable"):
        calibration.calibrate(spec, good, tmp_path / "a", NoTraining(), seeds=2, episodes=4, up_to=1.0,
                              weak=("effort",), backend="mjx")
    assert trained and all(o["backend"] == "mjx" for o in trained)
    monkeypatch.setattr(calibration, "train_and_evaluate", lambda *a, options, **k: (
        JobResult("ok", Path(a[2]), summary={"backend": "mjx"}), random_eval(1.0, 0.1)))
    report = calibration.calibrate(spec, good, tmp_path / "b", NoTraining(), seeds=2, episodes=4, up_to=1.0,
                                   weak=("effort",), backend="mjx")
    assert report.row(spec.train.timesteps).backends == ["mjx"]
    record = report.spec_record()
    assert record.backend == "mjx" and "on mjx" in record.status(spec.train.timesteps)
    monkeypatch.setattr(calibration, "train_and_evaluate", lambda *a, **k: pytest.fail("trained again"))
    assert calibration.calibrate(spec, good, tmp_path / "b", NoTraining(), seeds=2, episodes=4, up_to=1.0,
                                 weak=("effort",), backend="mjx").spec_record().backend == "mjx"  # resumed, kept
    assert calibration.CalibrationReport.model_validate({**report.model_dump(), "backend": ""}).spec_record().backend \
        is None  # a calibration on the spec's own backend records none


def test_the_effort_reference_of_a_discrete_action_penalises_any_choice_but_the_neutral_one(tmp_path: Path) -> None:
    """Squaring a choice's number means nothing: Acrobot's effort reference costs 1 for torque -1 or +1 (choices 0
    and 2) and nothing for no torque (1); a continuous task keeps minus the squared action."""
    source = weak_reward("effort", load_task("acrobot-swing-up"))
    namespace: dict = {}
    exec(compile(source, "weak_effort.py", "exec"), namespace)
    assert [namespace["compute_reward"](None, np.float64(a), None)[0] for a in (0, 1, 2)] == [-1.0, 0.0, -1.0]
    assert "np.square" in weak_reward("effort", load_task("inverted-double-pendulum-balance"))
    assert weak_reward("alive", load_task("acrobot-swing-up")).count("1.0") == 2


def test_a_learner_that_cannot_act_in_the_envs_action_space_is_a_task_error(tmp_path: Path) -> None:
    from rewardsmith.errors import TaskSpecError
    from rewardsmith.reward.task_check import validate_task

    text = (ENVS_DIR / "acrobot-swing-up.toml").read_text()
    shutil.copy(ENVS_DIR / "scorers_peer.py", tmp_path)
    for old, new, said in (
        ('algo = "PPO"', 'algo = "SAC"', 'use algo = "PPO"'),
        ("ent_coef = 0.0 }", "ent_coef = 0.0, use_sde = true }", "use_sde needs a continuous (Box) action"),
    ):
        path = tmp_path / "acrobot-swing-up.toml"
        path.write_text(text.replace(old, new))
        with pytest.raises(TaskSpecError, match=re.escape(said)):
            validate_task(load_task(path))


def test_a_gap_over_a_near_zero_spread_prints_capped() -> None:
    from rewardsmith.formatting import se_words

    assert [se_words(g) for g in (2.04, -1.0, 21416.3, -150.0, math.inf, math.nan)] == [
        "+2.0 se", "-1.0 se", "> +100 se", "< -100 se", "> +100 se", "-"]
    button = load_task("metaworld-button-press").calibration
    assert button is not None and button.short_status(50_000) == "calibrated > +100 se"



def test_each_seed_of_a_repeated_candidate_is_a_trained_policy_against_random() -> None:
    """Seen in a batch (pendulum-swing-up, 2,000 steps): the one candidate scored 0.0 on its search seed and 0.1925
    on its second, random 0.047; the run said no candidate learned and 'every one scores below' random, from the
    first seed alone. The second seed's policy beats random by many standard errors."""
    from rewardsmith.search.evidence import Evidence
    from rewardsmith.search.spread import Repeat, SeedSpread

    spec = load_task("pendulum-swing-up")
    records = [record("1.1", 0.0, 0.0, timesteps=2048)]
    assert learning_signal(records, random_eval(0.047, 0.01), spec).verdict == "nothing_learned"  # one seed
    spread = SeedSpread([Repeat("1.1", 2000, (0, 1), (0.0, 0.1925), (0.0, 0.0214))])
    assert learning_signal(records, random_eval(0.047, 0.01), spec, evidence=Evidence(spread)).verdict == "learned"
    weak = SeedSpread([Repeat("1.1", 2000, (0, 1), (0.0, 0.06), (0.0, 0.0214))])  # above random, not by 2 se
    signal = learning_signal(records, random_eval(0.047, 0.01), spec, evidence=Evidence(weak))
    assert signal.verdict == "nothing_learned" and "every one scores below it" not in signal.message
