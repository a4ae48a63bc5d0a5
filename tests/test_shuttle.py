"""The shuttle check: a reward that pays more for moving back and forth than for holding still is flagged by the
critic's worker, on its own random-action rollouts played backwards; one that pays for where the state is, or for
progress with retreats charged alike, is not."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from conftest import write_idp_tiny_task

from rewardsmith.search.evidence import structural_finding, tie_break_warning
from rewardsmith.stages.critic import critique
from rewardsmith.task import read_task
from rewardsmith.workers.executor import LocalExecutor
from rewardsmith.workers.shuttle import MIN_GAIN, episode_gains, matches, shuttle_message

EXECUTOR = LocalExecutor(workers=2)
RNG = np.random.default_rng(0)
WALK = [np.cumsum(RNG.normal(size=101)) for _ in range(4)]  # a distance (or velocity) along four rollouts


def rollouts(forward, backward, hold) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """(f, b, h) of each walk, from the reward of a step (x, x') and of holding at x."""
    return [
        (
            np.array([forward(x[t], x[t + 1]) for t in range(100)]),
            np.array([backward(x[t + 1], x[t]) for t in range(100)]),
            np.array([hold(v) for v in x]),
        )
        for x in WALK
    ]


def test_progress_whose_retreats_are_free_is_flagged_and_charged_retreats_are_not():
    def farm(a, b):
        return max(0.0, a - b)  # pays each approach, nothing for moving away

    assert shuttle_message(rollouts(farm, farm, lambda x: 0.0)) is not None
    assert all(g > MIN_GAIN for g in episode_gains(rollouts(farm, farm, lambda x: 0.0)))

    def progress(a, b):
        return a - b  # potential-based: a loop sums to zero

    assert all(g <= 1e-12 for g in episode_gains(rollouts(progress, progress, lambda x: 0.0)))
    assert shuttle_message(rollouts(progress, progress, lambda x: 0.0)) is None


def test_a_reward_of_where_the_state_is_never_gains_from_a_loop():
    def closeness(_, b):
        return -abs(b)  # minus the distance of the state reached

    assert all(g <= 0 for g in episode_gains(rollouts(closeness, closeness, lambda x: -abs(x))))


def test_a_velocity_is_paid_back_exactly_and_a_drifting_one_is_not_flagged_by_a_lucky_loop():
    # a reward of the next state's velocity: forward -v(t+1); backward, the next state carries -v(t+1) in place
    def forward(_, b):
        return -b

    def backward(a, _):
        return a

    assert all(abs(g) < 1e-12 for g in episode_gains(rollouts(forward, backward, lambda x: 0.0)))
    # paired the other way round (a true reversal), each loop gains the velocity change of its ends: single loops
    # gain, the mean over every start does not
    episodes = rollouts(forward, lambda _, b: b, lambda x: 0.0)
    f, b, h = episodes[0]
    assert max(float(f[i] + b[i]) for i in range(100)) > 0.5
    assert shuttle_message(episodes) is None


def test_a_recomputed_observation_must_match_the_recorded_one():
    assert matches(np.array([1.0, 2.0]), np.array([1.0, 2.01]))
    assert not matches(np.array([1.0, 2.0]), np.array([1.0, 3.0]))
    assert not matches(np.array([1.0, 2.0]), np.array([1.0, 2.0, 0.0]))
    assert matches({"a": np.ones(2)}, {"a": np.ones(2)}) and not matches({"a": np.ones(2)}, {"b": np.ones(2)})
    assert not matches(np.ones(2), {"a": np.ones(2)})


@pytest.fixture(scope="module")
def spec(tmp_path_factory):
    folder = tmp_path_factory.mktemp("task")
    return read_task(write_idp_tiny_task(folder))


def reward(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "reward.py"
    path.write_text("import numpy as np\n\n\ndef compute_reward(state, action, next_state):\n" + body)
    return path


def test_the_critic_flags_speed_in_any_direction_as_a_tie_breaking_warning(spec, tmp_path):
    speed = "    speed = abs(float(next_state.qvel[0]))\n    return speed, {'speed': speed}\n"
    report = critique(spec, reward(tmp_path, speed), tmp_path / "a", model=None, executor=EXECUTOR,
                      env_description=None)
    assert report.accepted, report.repair_text()
    assert [f.code for f in report.warnings] == ["shuttle"]
    assert "back and forth" in report.warnings[0].message and "holding still" in report.repair_text()
    kind, why = structural_finding(report.to_dict())
    assert kind == "shuttle" and tie_break_warning(report.to_dict()) == why
    # the task's own signed velocity (the cart to the right) is not farmed by a loop: no warning
    signed = "    right = float(next_state.qvel[0])\n    return right, {'right': right}\n"
    report = critique(spec, reward(tmp_path, signed), tmp_path / "b", model=None, executor=EXECUTOR,
                      env_description=None)
    assert report.accepted and report.warnings == []


def test_the_first_cuts_recheck_drops_a_constant_total_warning_and_keeps_a_shuttle_one():
    from rewardsmith.search.evidence import CONSTANT_TOTAL, SHUTTLE, Evidence

    evidence = Evidence(warnings={"1.1": CONSTANT_TOTAL, "1.2": SHUTTLE})
    varying = [{"label": "1.3", "episode": i, "steps": 10, "return": float(i + 1)} for i in range(5)]
    evidence.recheck({"1.1": varying, "1.2": varying})
    assert evidence.warnings == {"1.2": SHUTTLE} and "varied" in evidence.cleared["1.1"]


def test_check_says_whether_the_shuttle_check_ran(spec, tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from rewardsmith.cli import app

    monkeypatch.chdir(tmp_path)
    speed = reward(tmp_path, "    speed = abs(float(next_state.qvel[0]))\n    return speed, {'speed': speed}\n")
    result = CliRunner().invoke(app, ["check", str(spec.source), str(speed)], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "random-action rollouts played backwards and held still" in result.stdout
    assert "shuttle" in result.stdout and "1 warning" in result.stdout
