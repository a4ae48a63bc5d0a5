"""The training-backend seam (issue 24): the registry, the spec's `backend`, and vectorized in-process training."""

from __future__ import annotations

import json

import numpy as np
import pytest
from pydantic import ValidationError

from rewardsmith.errors import TaskSpecError
from rewardsmith.files import read_jsonl
from rewardsmith.task import ENVS_DIR, TrainDefaults, load_task
from rewardsmith.workers.backends import BACKENDS, DEFAULT_BACKEND, TrainingBackend, load_backend

EXAMPLES = ENVS_DIR / "examples"


def test_every_registered_backend_implements_the_seam():
    assert DEFAULT_BACKEND in BACKENDS
    for name in BACKENDS:
        backend = load_backend(name)
        assert isinstance(backend, TrainingBackend) and backend.name == name


def test_an_unknown_backend_is_a_clear_task_error():
    with pytest.raises(TaskSpecError, match="unknown training backend 'nope'; known: .*sb3"):
        load_backend("nope")


def test_the_spec_names_its_backend():
    assert TrainDefaults().backend == "sb3"
    with pytest.raises(ValidationError):
        TrainDefaults(backend="../evil")


@pytest.mark.parametrize("task", ["hopper-hop", "pusher-push"])
def test_retuned_tasks_keep_a_rollout_that_fits_their_minibatch(task):
    train = load_task(task).train
    rollout = train.n_envs * train.hyperparams["n_steps"]
    assert train.n_envs > 1 and rollout % train.hyperparams["batch_size"] == 0
    assert str(train.policy_kwargs["net_arch"]).count("64") in (2, 4)  # the 64x64 networks of docs/performance.md


def test_in_process_envs_step_as_sb3s_dummy_vec_env_does():
    import gymnasium as gym
    from stable_baselines3.common.vec_env import DummyVecEnv

    from rewardsmith.workers.backends.sb3 import in_process_envs

    def make():
        return gym.make("Pendulum-v1", max_episode_steps=50)

    ours, theirs = in_process_envs([make] * 3), DummyVecEnv([make] * 3)
    ours.seed(5), theirs.seed(5)
    assert np.array_equal(ours.reset(), theirs.reset())
    rng = np.random.default_rng(0)
    for _ in range(120):  # past two time limits, so that the resets and terminal observations are compared too
        actions = rng.uniform(-2, 2, size=(3, 1)).astype(np.float32)
        a, b = ours.step(actions), theirs.step(actions)
        for x, y in zip(a[:3], b[:3], strict=True):
            assert np.array_equal(x, y)
        for x, y in zip(a[3], b[3], strict=True):
            assert x.keys() == y.keys() and x["TimeLimit.truncated"] == y["TimeLimit.truncated"]
            assert np.array_equal(x.get("terminal_observation", 0), y.get("terminal_observation", 0))


def test_vectorized_training_logs_components_per_env_and_reports_its_setup(cli, tiny_spec, tmp_path):
    spec = tiny_spec("inverted-double-pendulum-balance", n_envs=4, timesteps=1024)
    out = tmp_path / "out"
    code, _, stderr = cli("train", spec, EXAMPLES / "inverted_double_pendulum_balance.py", "--out", out)
    assert code == 0, stderr
    summary = json.loads((out / "summary.json").read_text())
    assert summary["backend"] == "sb3" and summary["n_envs"] == 4 and summary["timesteps"] >= 1024
    records, problems = read_jsonl(out / "metrics.jsonl")
    train = [r for r in records if r["kind"] == "train"]
    assert not problems and train and all(r["components"] for r in train)
    assert sum(r["episodes"] for r in train) >= 4  # episodes of several envs, each summed by its own wrapper


def test_learning_curve_episodes_side_by_side_match_one_env_in_turn():
    from rewardsmith.workers.backends.base import make_reward_env, run_episodes

    spec = load_task("hopper-hop")
    calls: list[int] = []

    def act(obs):  # a deterministic policy of the observation, counting policy calls and their batch sizes
        calls.append(len(obs))
        return np.tanh(obs[:, :3] * 3.0)

    def envs(n):
        return [make_reward_env(spec, None, "native") for _ in range(n)]

    one = run_episodes(act, envs(1), 5, seed=7)
    one_calls, calls[:] = len(calls), []
    side_by_side = run_episodes(act, envs(3), 5, seed=7)
    assert [e["episode"] for e in side_by_side] == list(range(5))
    for a, b in zip(one, side_by_side, strict=True):
        assert a["length"] == b["length"] and a["fitness"] == pytest.approx(b["fitness"], rel=1e-5)
    assert len(calls) < one_calls and max(calls) == 3


@pytest.mark.parametrize("timesteps,eval_freq,episodes,limit,points", [
    (200_000, 20_000, 5, 1000, 10),  # a search budget: the spec's spacing
    (16_384, 20_000, 3, 1000, 4),  # a short job: a quarter of it
    (16_384, 20_000, 5, 1000, 3),  # ... unless its points would cost more env steps than it trains
    (2_048, 20_000, 3, 1000, 1),  # a first rung: one point, at the end
    (1_024, 512, 2, 100, 4),
])
def test_a_short_jobs_learning_curve_costs_no_more_env_steps_than_it_trains(timesteps, eval_freq, episodes, limit, points):
    from rewardsmith.workers.backends.base import TrainRequest
    from rewardsmith.workers.job import WorkerJob

    spec = load_task("halfcheetah-run")
    spec = spec.model_copy(update={"train": spec.train.model_copy(update={"eval_freq": eval_freq, "eval_episodes": episodes})})
    job = WorkerJob(task_path=ENVS_DIR / "halfcheetah-run.toml", out_dir=".", timesteps=timesteps)
    request = TrainRequest(job=job, spec=spec, timesteps=timesteps, reward=None, log=None)  # type: ignore[arg-type]
    freq = request.eval_freq(limit)
    assert timesteps // freq == points  # points at freq, 2 freq, ...: the last at or just before the job's end
    assert points * freq <= timesteps < (points + 1) * freq


def test_the_episode_limit_is_the_time_limits():
    from rewardsmith.task import make_env
    from rewardsmith.workers.backends.base import episode_limit, make_reward_env

    spec = load_task("hopper-hop")
    assert episode_limit(make_reward_env(spec, None, "native")) == 1000
    assert episode_limit(make_env(spec).unwrapped) == 1000  # no TimeLimit: the default


def test_a_continued_job_runs_its_learning_curve_at_its_own_spacing_not_in_a_burst():
    # a rung continued from a checkpoint starts at the checkpoint's steps: it used to run a point at every step
    # until the spacing counted from 0 caught up (16 points back to back after 16k steps)
    from types import SimpleNamespace

    from rewardsmith.workers.backends.sb3 import FitnessEvalCallback

    curve = FitnessEvalCallback(None, [], eval_freq=1000, episodes=1, seed=0, offset=16_000)  # type: ignore[arg-type]
    points: list[int] = []
    curve.run_eval = lambda: points.append(curve.num_timesteps)  # type: ignore[method-assign]
    curve.model = SimpleNamespace(num_timesteps=16_000)  # type: ignore[assignment]
    for done in range(16_008, 20_008, 8):
        curve.model.num_timesteps = done
        curve.on_step()
    assert points == [17_000, 18_000, 19_000, 20_000]
