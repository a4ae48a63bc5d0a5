"""A spec's `[train]` settings that the learner refuses (a misspelt hyperparameter, an ill-typed network) stop
`run`, `check-task`, `train`, `calibrate` and `baseline` before anything is spent, as a task error naming the
settings: before, `run` paid for the LLM's rewards first, and every training then failed with an error that named
the candidate's reward file."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from rewardsmith.errors import TaskSpecError
from rewardsmith.task import load_task
from rewardsmith.workers.backends import check_training_settings

REWARD = Path(__file__).parent.parent / "envs" / "examples" / "inverted_double_pendulum_balance.py"


def test_settings_the_learner_refuses_are_a_task_error() -> None:
    spec = load_task("inverted-double-pendulum-balance")
    check_training_settings(spec)  # the shipped settings build
    typo = spec.train.model_copy(update={"hyperparams": {**spec.train.hyperparams, "n_stepz": 64}})
    with pytest.raises(TaskSpecError, match=r"\[train\] PPO refuses these settings .*'n_stepz'"):
        check_training_settings(spec.model_copy(update={"train": typo}))
    net = spec.train.model_copy(update={"policy_kwargs": {"net_arch": "big"}})
    with pytest.raises(TaskSpecError, match=r"\[train\] PPO refuses these settings \(hyperparams .*'big'"):
        check_training_settings(spec.model_copy(update={"train": net}))


def test_run_check_task_and_train_refuse_them_before_any_work(cli, tiny_spec, tmp_path: Path) -> None:
    spec = tiny_spec("inverted-double-pendulum-balance")
    spec.write_text(re.sub(r"(?m)^hyperparams = \{", "hyperparams = { n_stepz = 64, ", spec.read_text()))
    verbs = {
        "run": ["run", spec, "--model", "scripted:/dev/null", "--out", tmp_path / "run"],
        "check-task": ["check-task", spec],
        "train": ["train", spec, REWARD, "--timesteps", "64", "--out", tmp_path / "train"],
        "calibrate": ["calibrate", spec, "--reward", REWARD, "--out", tmp_path / "calibration"],
        "baseline": ["baseline", spec, "--timesteps", "64"],
    }
    for verb, args in verbs.items():
        code, out, err = cli(*args)
        assert code == 2 and "PPO refuses these settings" in err and "n_stepz" in err, (verb, out, err)
    assert not any((tmp_path / name).exists() for name in ("run", "train", "calibration"))


def test_the_check_says_nothing_of_its_one_env_stand_in(monkeypatch) -> None:
    """The check builds the model on one env; SB3's warning that a minibatch is larger than that one env's
    rollout (hopper-hop: 8 envs x 64 steps, batch 128) spoke of the stand-in, and every hopper-hop run printed it."""
    import warnings

    from rewardsmith.workers.backends import sb3

    monkeypatch.setattr(sb3, "_ACCEPTED", set())  # built here, not answered from another test's check
    spec = load_task("hopper-hop")
    assert spec.train.n_envs * spec.train.hyperparams["n_steps"] >= spec.train.hyperparams["batch_size"]
    assert spec.train.hyperparams["n_steps"] < spec.train.hyperparams["batch_size"]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_training_settings(spec)
    assert not [str(w.message) for w in caught]


def test_a_budget_under_one_ppo_rollout_is_said_to_train_one(cli, tmp_path: Path) -> None:
    """`run hopper-hop --timesteps 10` trained 512 steps a candidate (one rollout of 8 envs x 64) and said 10."""
    taken = tmp_path / "taken"
    taken.mkdir()
    (taken / "mine.txt").write_text("a user's file\n")  # the run stops at its folder, after the notes
    code, _, err = cli("run", "hopper-hop", "--timesteps", "10", "--model", "scripted:/dev/null", "--out", taken)
    assert code != 0 and "10 steps is less than one PPO rollout (8 envs x 64 steps): each training runs 512" in err
    code, _, err = cli("run", "hopper-hop", "--timesteps", "600", "--model", "scripted:/dev/null", "--out", taken)
    assert code != 0 and "PPO rollout" not in err
