"""Progress counts (issue 11 item 5): the bonus arithmetic, the wrapper, the critic's progress findings from real
sandboxed smoke jobs, the prompt, the job options, and (slow) a scripted run that trains with the bonus."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from conftest import write_idp_tiny_task

from rewardsmith.config import RunConfig
from rewardsmith.errors import RewardFileError
from rewardsmith.reward.progress import (
    BONUS_COMPONENT,
    ProgressBonus,
    ProgressCounts,
    ProgressOptions,
    load_with_progress,
    progress_cell,
    validate_progress,
)
from rewardsmith.reward.wrappers import ApplyReward
from rewardsmith.sandbox.policy import check_progress_signature
from rewardsmith.stages.critic import critique, dynamic_findings
from rewardsmith.stages.designer import Designer
from rewardsmith.task import load_task, make_env, read_task
from rewardsmith.workers.executor import LocalExecutor

EXECUTOR = LocalExecutor(workers=2)
"""The worker pool of this module's stage calls (a stage takes its executor explicitly)."""

TASK = "inverted-double-pendulum-balance"
REWARD = """import numpy as np


def compute_reward(state, action, next_state):
    tip = float(next_state.site("tip").pos[2])
    return tip, {"tip": tip}
"""
GOOD_PROGRESS = """

def progress(state):
    tip = float(state.site("tip").pos[2])
    return [float(np.clip(tip / 1.2, 0.0, 1.0)), float(np.clip(1.0 - abs(state.obs[0]), 0.0, 1.0))]
"""
SMOKE = {"transitions": 60, "episode_steps": 30}
ON = {"progress": {"beta": 0.5, "bins": 10}}


@pytest.fixture(scope="module")
def spec(tmp_path_factory):
    folder = tmp_path_factory.mktemp("task")
    write_idp_tiny_task(folder)
    return read_task(folder / "task.toml")


def write(tmp_path: Path, source: str, name: str = "reward.py") -> Path:
    path = tmp_path / name
    path.write_text(source)
    return path


# -- the arithmetic ----------------------------------------------------------------------------------------------


def test_bonus_is_beta_over_root_of_the_visit_count():
    counts = ProgressCounts(ProgressOptions(beta=0.3, bins=10))
    bonuses = [counts.visit([0.55, 0.1]) for _ in range(4)]
    assert bonuses[0] == pytest.approx(0.3)
    assert bonuses[1] == pytest.approx(0.3 / math.sqrt(2))
    assert bonuses[3] == pytest.approx(0.15)  # 4th visit: beta / 2
    assert counts.visit([0.59, 0.19]) == pytest.approx(0.3 / math.sqrt(5))  # same cell
    assert counts.visit([0.6, 0.1]) == pytest.approx(0.3)  # the next bin is a new cell
    assert counts.counts == {(5, 1): 5, (6, 1): 1}


def test_cells_at_the_edges():
    assert progress_cell([0.0, 1.0], 10) == (0, 9)  # 1.0 falls in the last bin, not a bin of its own
    assert progress_cell([0.1, 0.9999], 10) == (1, 9)
    assert progress_cell([0.5], 1) == (0,)
    assert progress_cell([1.0, 0.25], 4) == (3, 1)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (0.5, "must return a list of floats"),
        ("0.5", "must return a list of floats"),
        ({"a": 0.5}, "must return a list of floats"),
        ([], "empty list"),
        ([0.5, float("nan")], "progress[1] must be finite"),
        ([0.5, math.inf], "progress[1] must be finite"),
        ([1.5], "outside [0, 1]"),
        ([-0.01], "outside [0, 1]"),
        ([None], "progress[0] must be a float"),
        ([True], "progress[0] must be a float"),
        (np.zeros((2, 2)), "flat list"),
    ],
)
def test_bad_progress_values_are_named(value, message):
    with pytest.raises(RewardFileError, match=message.replace("[", r"\[").replace("]", r"\]")):
        validate_progress(value)


def test_good_progress_values_and_length():
    assert validate_progress((0.0, 1, np.float32(0.5))) == [0.0, 1.0, 0.5]
    assert validate_progress(np.array([0.25, 0.75])) == [0.25, 0.75]
    with pytest.raises(RewardFileError, match="returned 3 values here but 2 before"):
        validate_progress([0.1, 0.2, 0.3], expected_length=2)


def test_options_round_trip_and_off_by_default():
    assert RunConfig(task="t").progress_options() is None
    config = RunConfig(task="t", progress_bonus=0.2, progress_bins=5)
    assert config.progress_options() == {"beta": 0.2, "bins": 5}
    assert ProgressOptions.from_job({"progress": config.progress_options()}) == ProgressOptions(0.2, 5)
    assert ProgressOptions.from_job({}) is None
    assert ProgressOptions.from_job({"progress": {"beta": 0.0}}) is None


# -- loading and the wrapper -------------------------------------------------------------------------------------


def test_one_module_run_gives_both_functions_and_a_missing_progress_is_none():
    reward_fn, progress_fn = load_with_progress(REWARD + GOOD_PROGRESS, filename="r.py")
    assert callable(reward_fn) and callable(progress_fn)
    assert load_with_progress(REWARD, filename="r.py")[1] is None
    assert check_progress_signature(REWARD)[0].code == "progress-signature"
    assert "exactly 1 positional parameter (state)" in check_progress_signature(REWARD + "\ndef progress(a, b):\n"
                                                                               "    return [0.0]\n")[0].message
    assert check_progress_signature(REWARD + GOOD_PROGRESS) == []


def test_wrapper_adds_the_bonus_and_logs_progress_components():
    spec = load_task(TASK)
    reward_fn, progress_fn = load_with_progress(REWARD + GOOD_PROGRESS, filename="r.py")
    counts = ProgressCounts(ProgressOptions(beta=1.0, bins=4))
    env = ProgressBonus(ApplyReward(make_env(spec), reward_fn=reward_fn), progress_fn, counts)
    env.reset(seed=0)
    bonuses, rewards, stats = [], [], None
    for _ in range(1000):
        _, reward, terminated, truncated, info = env.step(np.zeros(env.action_space.shape))
        tip = float(env.env.state.site("tip").pos[2])
        rewards.append(reward)
        bonuses.append(reward - tip)
        if terminated or truncated:
            stats = info["episode_stats"]
            break
    assert stats is not None
    assert bonuses[0] == pytest.approx(1.0)  # the first visit of the start cell
    assert bonuses[1] == pytest.approx(1 / math.sqrt(2))
    assert sum(counts.counts.values()) == len(bonuses)
    components = stats["components"]
    assert components[BONUS_COMPONENT] == pytest.approx(sum(bonuses))
    assert {"tip", BONUS_COMPONENT, "progress_0", "progress_1"} == set(components)
    assert 0 < components["progress_0"] <= len(bonuses)
    assert stats["return"] == pytest.approx(sum(rewards))


def test_wrapper_fails_on_bad_progress_during_training():
    spec = load_task(TASK)
    reward_fn, _ = load_with_progress(REWARD, filename="r.py")
    counts = ProgressCounts(ProgressOptions(beta=1.0))
    env = ProgressBonus(ApplyReward(make_env(spec), reward_fn=reward_fn), lambda state: [float("nan")], counts)
    env.reset(seed=0)
    with pytest.raises(RewardFileError, match="must be finite"):
        env.step(np.zeros(env.action_space.shape))


# -- the critic: static and real sandboxed smoke jobs ------------------------------------------------------------


def test_static_stage_requires_progress_only_when_on(spec, tmp_path):
    path = write(tmp_path, REWARD)
    report = critique(spec, path, tmp_path / "on", options={**ON, **SMOKE}, model=None, executor=EXECUTOR, env_description=None)
    assert not report.accepted and [f.code for f in report.findings] == ["progress-signature"]
    assert "define a top-level `def progress(state):`" in report.repair_text()
    assert report.stats["stages"] == ["static"]  # no worker was started


def test_smoke_accepts_good_progress_and_reports_its_values(spec, tmp_path):
    report = critique(spec, write(tmp_path, REWARD + GOOD_PROGRESS), tmp_path / "out", options={**ON, **SMOKE}, model=None, executor=EXECUTOR, env_description=None)
    assert report.accepted, report.repair_text()
    progress = report.stats["dynamic"]["progress"]
    assert len(progress["mean"]) == 2 and all(0 <= v <= 1 for v in progress["max"])
    off = critique(spec, write(tmp_path, REWARD + GOOD_PROGRESS, "off.py"), tmp_path / "off", options=SMOKE, model=None, executor=EXECUTOR, env_description=None)
    assert off.accepted and "progress" not in off.stats["dynamic"]  # off: defined and ignored


def test_smoke_reports_every_kind_of_bad_progress(spec, tmp_path):
    # obs[1] (sin of the pole angle) takes both signs and the cart position obs[0] grows under random actions
    bad = """

def progress(state):
    a = float(state.obs[1])
    if abs(float(state.obs[0])) > 0.2:
        return [0.5, 0.5, 0.5]
    if a > 0.05:
        return [float("nan"), 0.5]
    if a < -0.05:
        return [0.5, 1.0 / (a - a)]
    return [0.5, 0.5]
"""
    report = critique(spec, write(tmp_path, REWARD + bad), tmp_path / "out", options={**ON, **SMOKE}, model=None, executor=EXECUTOR, env_description=None)
    found = {f.code: f for f in report.findings}
    assert not report.accepted
    assert {"progress-contract", "progress-exception", "progress-length"} <= set(found), report.repair_text()
    assert "must be finite" in found["progress-contract"].message
    assert "ZeroDivisionError" in found["progress-exception"].message and found["progress-exception"].line
    assert "return the same number of sub-goals" in found["progress-length"].message
    assert "transitions failed this way" in found["progress-length"].message
    assert "progress(state) on sampled states" in report.repair_text()  # the valid values, for the repair


@pytest.mark.slow  # a fallback path; the fast set keeps four worker runs
def test_smoke_names_a_missing_progress_it_could_not_load(spec, tmp_path):
    # a fallback: the static stage catches this first
    findings, _ = dynamic_findings(spec, write(tmp_path, REWARD), tmp_path / "w", options={**ON, **SMOKE}, executor=EXECUTOR)
    assert [f.code for f in findings] == ["progress-missing"]


def test_progress_time_counts_toward_the_per_call_budget(spec, tmp_path):
    slow = "\n\ndef progress(state):\n    s = 0.0\n    for i in range(100000):\n        s += i\n    return [0.5]\n"
    options = {**ON, **SMOKE, "per_call_budget_ms": 0.5}  # the reward alone takes ~0.02 ms, the loop ~3 ms or more (20,000 steps once came in under 0.5 ms)
    findings, stats = dynamic_findings(spec, write(tmp_path, REWARD + slow), tmp_path / "w", options=options, executor=EXECUTOR)
    assert "too-slow" in [f.code for f in findings], findings
    assert stats["time_ms"]["median"] > 0.5


def test_a_runs_jobs_get_its_progress_option():
    assert RunConfig(task=TASK, progress_bonus=0.25).job_options() == {"progress": {"beta": 0.25, "bins": 10}}
    assert RunConfig(task=TASK).job_options() == {}


# -- the prompt --------------------------------------------------------------------------------------------------


def test_prompt_mentions_progress_only_when_on(spec):
    off = Designer(None, spec, "an environment").prompt()
    on = Designer(None, spec, "an environment", progress=True).prompt()
    assert "progress(state)" not in off[0]["content"] and "progress_bonus" not in off[0]["content"]
    assert "`progress(state) -> list[float]`" in on[0]["content"]
    assert "0 = not started, 1 = done" in on[0]["content"] and "def progress(state):" in on[0]["content"]
    assert on[1:] == off[1:]


# -- a real run --------------------------------------------------------------------------------------------------


@pytest.mark.slow
def test_scripted_run_trains_with_the_progress_bonus(tiny_spec, tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from rewardsmith.cli import app

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    spec_path = tiny_spec(TASK, timesteps=2048, eval_episodes=3)
    reply = "Tip height, with progress.\n\n```python\n" + REWARD + GOOD_PROGRESS + "```\n"
    script = tmp_path / "script.jsonl"
    script.write_text(json.dumps({"role": "designer", "content": reply}) + "\n")
    out = tmp_path / "run"
    args = ["run", str(spec_path), "--model", f"scripted:{script}", "--iterations", "1", "--samples", "1",
            "--final-seeds", "0", "--workers", "1", "--progress-bonus", "0.5", "--progress-bins", "5", "--out",
            str(out)]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, f"{result.output}\n{result.exception!r}"
    assert json.loads((out / "run.json").read_text())["config"]["progress_bonus"] == 0.5
    (cand,) = (out / "iter_1").glob("cand_*")
    assert json.loads((cand / "job.json").read_text())["options"]["progress"] == {"beta": 0.5, "bins": 5}
    train = [json.loads(line) for line in (cand / "metrics.jsonl").read_text().splitlines()]
    train = [line for line in train if line["kind"] == "train"]
    assert train and all({BONUS_COMPONENT, "progress_0", "progress_1", "tip"} <= set(t["components"]) for t in train)
    assert all(t["components"][BONUS_COMPONENT] > 0 for t in train)
    print("\n".join(json.dumps({"timesteps": t["timesteps"], "components": t["components"]}) for t in train))
    analysis = json.loads((cand / "analysis.json").read_text())
    assert {BONUS_COMPONENT, "progress_0", "progress_1"} <= set(analysis["components"])  # analysed like a reward
    evaluation = json.loads((cand / "eval" / "evaluation.json").read_text())
    assert "progress_bonus" not in json.dumps(evaluation)  # the trusted evaluation never sees the bonus
