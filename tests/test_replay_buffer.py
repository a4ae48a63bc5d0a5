"""SAC's replay buffer in a training worker: capped at the job's steps (the same training, bit for bit), its size
counted as SB3 reserves it, and a clear task error, before a run, where even that cannot fit a worker's memory."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
import torch
from conftest import pendulum_sac
from stable_baselines3.common.buffers import ReplayBuffer

from rewardsmith.errors import TaskSpecError
from rewardsmith.task import load_task
from rewardsmith.workers.backends.lean_sac import LeanSAC
from rewardsmith.workers.backends.replay_buffer import (
    SB3_BUFFER,
    buffer_bytes,
    check_buffer_fits,
    check_task_buffer_fits,
    job_buffer_size,
)

pytestmark = pytest.mark.usefixtures("one_torch_thread")


def test_the_buffer_is_capped_at_the_jobs_steps() -> None:
    assert job_buffer_size({}, 20_000, 1) == 20_002
    assert job_buffer_size({"buffer_size": 5_000}, 20_000, 4) == 5_000  # a spec's smaller buffer is kept
    assert job_buffer_size({}, 5_000_000, 1) == SB3_BUFFER


def test_a_buffer_of_the_jobs_steps_trains_the_same_weights_bit_for_bit() -> None:
    """SB3 samples from the filled part of a buffer that is not full: 1,000,000 slots or the job's 252 give the
    same draws, so the same training."""
    weights = []
    for size in (SB3_BUFFER, job_buffer_size({}, 250, 1)):
        model = pendulum_sac(LeanSAC, 250, buffer_size=size)
        assert model.replay_buffer.buffer_size == size and not model.replay_buffer.full
        weights.append({**model.policy.state_dict(), "log_ent_coef": model.log_ent_coef})
    assert all(torch.equal(weights[0][k], weights[1][k]) for k in weights[0])


@pytest.mark.parametrize(
    ("obs", "action"),
    [
        (gym.spaces.Box(-np.inf, np.inf, (348,), np.float64), gym.spaces.Box(-0.4, 0.4, (17,), np.float32)),
        (gym.spaces.Box(-1, 1, (39,), np.float32), gym.spaces.Box(-1, 1, (4,), np.float64)),
    ],
)
def test_buffer_bytes_are_what_sb3_reserves(obs, action) -> None:
    buffer = ReplayBuffer(1_000, obs, action, device="cpu")
    arrays = ("observations", "next_observations", "actions", "rewards", "dones", "timeouts")
    assert buffer_bytes(1_000, obs, action) == sum(getattr(buffer, name).nbytes for name in arrays)


def test_a_buffer_too_big_for_the_worker_is_a_task_error_naming_the_fix() -> None:
    humanoid = gym.spaces.Box(-np.inf, np.inf, (348,), np.float64)
    action = gym.spaces.Box(-0.4, 0.4, (17,), np.float32)
    check_buffer_fits("humanoid", 300_000, humanoid, action, memory_mb=6144)  # 1.7 GB: fits
    with pytest.raises(TaskSpecError, match=r"needs 5\.6 GB .* set `buffer_size = 760_440` or less"):
        check_buffer_fits("humanoid", SB3_BUFFER, humanoid, action, memory_mb=6144)


def test_a_run_whose_longest_training_cannot_fit_is_refused_before_it_starts(tmp_path) -> None:
    """fetch-reach's 16 float64 observation dims (its goal dict flattened): its spec's trainings fit; one whose buffer is
    not capped by the spec (20,000,000 transitions) for 30,000,000 steps would not, and neither `rewardsmith run`
    nor `check-task` starts it."""
    import re
    import shutil

    from typer.testing import CliRunner

    from rewardsmith.cli import app
    from rewardsmith.reward.wrappers import ApplyReward
    from rewardsmith.task import ENVS_DIR, make_env

    spec = load_task("fetch-reach")
    env = ApplyReward(make_env(spec), source="native")
    try:
        check_task_buffer_fits(spec, env)
        train = spec.train.model_copy(update={"hyperparams": {**spec.train.hyperparams, "buffer_size": 20_000_000}})
        with pytest.raises(TaskSpecError, match="a training of 30,000,000 steps: SAC's replay buffer of 20,000,000"):
            check_task_buffer_fits(spec.model_copy(update={"train": train}), env, 30_000_000)
    finally:
        env.close()
    for module in ENVS_DIR.glob("*.py"):
        shutil.copyfile(module, tmp_path / module.name)
    text = (ENVS_DIR / "fetch-reach.toml").read_text()
    text = re.sub(r"(?m)^final_timesteps = .*$", "final_timesteps = 30_000_000", text)
    assert "buffer_size = 300_000" in text
    text = text.replace("buffer_size = 300_000", "buffer_size = 20_000_000")
    (tmp_path / "fetch-reach.toml").write_text(text)
    for args in (
        ["check-task", str(tmp_path / "fetch-reach.toml")],
        ["run", str(tmp_path / "fetch-reach.toml"), "--model", "scripted:/dev/null", "--out", str(tmp_path / "run")],
    ):
        result = CliRunner().invoke(app, args)  # the CLI's entry point prints a TaskSpecError as "error: ..."
        assert isinstance(result.exception, TaskSpecError), result.output
        assert "SAC's replay buffer of 20,000,000 transitions needs" in str(result.exception)
    assert not (tmp_path / "run").exists()
