"""A user's own spec is offered the same calibration as a shipped one: `new-task` names the commands,
`check-task` checks the spec as a run would and prints the exact calibrate command, `--calibrate` runs it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from rewardsmith.task import ENVS_DIR, load_task, read_task


def copy_spec(folder: Path, name: str = "hopper-hop", as_name: str | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for module in ENVS_DIR.glob("*.py"):
        shutil.copy(module, folder / module.name)
    path = folder / f"{as_name or name}.toml"
    shutil.copy(ENVS_DIR / f"{name}.toml", path)
    return path


def test_the_calibrate_command_names_the_spec_the_way_that_finds_it(tmp_path: Path, monkeypatch) -> None:
    assert load_task("hopper-hop").calibrate_command() == "rewardsmith calibrate hopper-hop --write-spec"
    path = copy_spec(tmp_path / "mine")  # a copy of a shipped spec: its name finds envs/'s, so it goes by path
    assert read_task(path).calibrate_command() == f"rewardsmith calibrate {path} --reward REWARD.py --write-spec"
    (path.parent / "examples").mkdir()
    shutil.copy(ENVS_DIR / "examples" / "hopper_hop.py", path.parent / "examples" / "hopper_hop.py")
    assert read_task(path).calibrate_command() == f"rewardsmith calibrate {path} --write-spec"  # its own example
    own = copy_spec(tmp_path / "tasks", as_name="my-hop")
    own.write_text(own.read_text().replace('name = "hopper-hop"', 'name = "my-hop"'))
    monkeypatch.setenv("REWARDSMITH_TASKS", str(own.parent))  # on the path: by name
    assert read_task(own).calibrate_command(Path("r 1.py")) == "rewardsmith calibrate my-hop --reward 'r 1.py' --write-spec"


def test_a_run_on_a_users_uncalibrated_spec_is_told_the_exact_command(tmp_path: Path) -> None:
    path = copy_spec(tmp_path)
    path.write_text(path.read_text().split("[calibration]")[0])  # a user's own spec: not calibrated yet
    note = read_task(path).calibration_note(200_000) or ""
    assert f"`rewardsmith calibrate {path} --reward REWARD.py --write-spec` measures whether they do" in note


def test_new_task_and_check_task_offer_the_calibration(cli, tmp_path: Path) -> None:
    code, out, err = cli("new-task", "my-task", "--env", "InvertedDoublePendulum-v5", "--folder", tmp_path)
    assert code == 0, out + err
    spec = tmp_path / "my-task.toml"
    assert f"`rewardsmith check-task {spec}` (env, scorer, calibration)" in out
    assert f"`rewardsmith check-task {spec} --reward REWARD.py --calibrate` measures" in out  # one unbroken line
    code, out, err = cli("check-task", spec)
    assert code == 0, out + err
    assert "my-task: search budget uncalibrated" in out
    assert "my-task: the environment description builds (" in out and f"`rewardsmith describe {spec}` prints" in out
    # the skeleton's placeholders would reach the designer's prompt as they are
    assert "new-task's TODO placeholders are still in the description, success, scorer's unit" in out
    lines = [line for line in out.splitlines() if line.startswith("calibrate it (~")]
    assert len(lines) == 1 and lines[0].endswith(f"CPU-h here): rewardsmith calibrate {spec} --reward REWARD.py --write-spec")
    code, out, _ = cli("check-task", spec, "--reward", tmp_path / "good.py")
    assert f"rewardsmith calibrate {spec} --reward {tmp_path / 'good.py'} --write-spec" in out


def test_check_task_reports_a_calibrated_task_and_refuses_what_it_cannot_calibrate(cli, tmp_path: Path) -> None:
    code, out, err = cli("check-task", "pendulum-swing-up")
    assert code == 0 and "search budget calibrated (+" in out and "calibrate it" not in out, out + err
    path = copy_spec(tmp_path, "inverted-double-pendulum-balance")
    path.write_text(path.read_text().split("[calibration]")[0])
    code, _, err = cli("check-task", path, "--calibrate")
    assert code == 2 and "has no example reward: name one that works with --reward" in err
    code, _, err = cli("check-task", tmp_path / "missing.toml")
    assert code == 2 and "no such task spec file" in err and "Traceback" not in err


def test_an_env_the_description_cannot_read_is_a_clear_error_before_a_run(cli, tmp_path: Path, monkeypatch) -> None:
    """A user's env that the description builder fails on (PointMaze did, round 35) stops `check-task` and `run`
    with the cause and the command that shows where, not a traceback, before a model is called."""
    import rewardsmith.stages.env_description as env_description

    def fails(spec, seed=0):
        raise AttributeError("'MazeEnv' object has no attribute 'init_qpos'")

    monkeypatch.setattr(env_description, "describe", fails)
    path = copy_spec(tmp_path)
    code, _, err = cli("check-task", path)
    assert code == 2 and "Traceback" not in err, err
    assert "the environment description the LLM reads could not be built from Hopper-v5 (AttributeError:" in err
    assert f"`rewardsmith describe {path}` shows where it failed" in err


@pytest.mark.slow
def test_check_task_calibrate_measures_and_records_a_users_spec(cli, tiny_spec, tmp_path: Path) -> None:
    spec = tiny_spec("inverted-double-pendulum-balance", timesteps=2048, eval_episodes=2,
                     hyperparams={"n_steps": 256, "batch_size": 64, "n_epochs": 1})
    example = ENVS_DIR / "examples" / "inverted_double_pendulum_balance.py"
    code, out, err = cli("check-task", spec, "--reward", example, "--calibrate", "--out", tmp_path / "c")
    assert code == 0, out + err
    assert "smallest budget that separates" in out and f"wrote [calibration] to {Path(spec).resolve()}" in out
    recorded = read_task(spec).calibration
    assert recorded is not None and recorded.budget == 2048 and recorded.seeds == 3
    assert recorded.weak_references == ["alive", "effort"]


def test_the_clis_margin_default_is_the_librarys() -> None:
    import inspect

    from rewardsmith.cli.calibrate import calibrate_and_print, print_report
    from rewardsmith.search.calibration import MARGIN_SE

    for function in (calibrate_and_print, print_report):
        assert inspect.signature(function).parameters["margin"].default == MARGIN_SE


def test_a_calibration_cut_before_its_search_budget_concludes_nothing(capsys) -> None:
    from rewardsmith.cli.calibrate import print_report
    from rewardsmith.search.calibration import BudgetRow, CalibrationReport

    rung = BudgetRow(budget=1250, good=[-0.157, -0.15], weak={"effort": [-0.156, -0.16]}, random=[-0.2] * 10)
    report = CalibrationReport(task="fetch-reach", reward="r.py", seeds=2, episodes=5, search_budget=20_000,
                               first_rung=1250, rows=[rung])
    print_report(report)
    out = " ".join(capsys.readouterr().out.split())
    assert "not measured at the search budget (20,000 steps) yet" in out and "needs GPU" not in out


def test_a_report_without_weak_references_prints_good_against_random_alone(capsys) -> None:
    # bench/trained_vs_random.py without --weak: no "good-weak > +100 se" against a reference never trained
    from rewardsmith.cli.calibrate import print_report
    from rewardsmith.search.calibration import BudgetRow, CalibrationReport

    row = BudgetRow(budget=20_000, good=[0.07, 0.1, 0.04], weak={}, random=[0.1] * 20)
    report = CalibrationReport(task="swimmer-spin", reward="r.py", seeds=3, episodes=5, search_budget=20_000,
                               first_rung=5000, rows=[row])
    print_report(report)
    out = " ".join(capsys.readouterr().out.split())
    assert "good-random" in out and "weak" not in out and " - -" not in out


def test_a_runs_advice_names_the_spec_it_was_started_with_not_the_run_folders_copy(tmp_path: Path) -> None:
    from rewardsmith.config import RunConfig
    from rewardsmith.run_folder.folder import RunFolder
    from rewardsmith.search.final import as_given

    shipped = load_task("hopper-hop")
    (tmp_path / "run").mkdir()
    folder = RunFolder.create(tmp_path / "run", RunConfig(task="hopper-hop"), shipped, "scripted:x")
    copy = read_task(folder.path / "task.toml")  # what the run trains from
    assert copy.calibrate_command().startswith(f"rewardsmith calibrate {folder.path / 'task.toml'}")
    assert as_given(folder, copy).calibrate_command() == "rewardsmith calibrate hopper-hop --write-spec"

    path = copy_spec(tmp_path / "mine")
    (tmp_path / "run2").mkdir()
    folder = RunFolder.create(tmp_path / "run2", RunConfig(task=str(path)), read_task(path), "scripted:x")
    assert as_given(folder, read_task(folder.path / "task.toml")).source == path.resolve()
    path.unlink()  # the user's file is gone: the copy is all there is
    assert as_given(folder, read_task(folder.path / "task.toml")).source == (folder.path / "task.toml").resolve()
