"""Training a hand-written reward through the sandboxed worker, and the files it writes."""

from __future__ import annotations

import json
import time
from pathlib import Path

import gymnasium as gym
import pytest

from rewardsmith.files import read_jsonl
from rewardsmith.reward.wrappers import ApplyReward, RewardWrapper, is_native_reward_key
from rewardsmith.task import ENVS_DIR

EXAMPLES = ENVS_DIR / "examples"
HOSTILE = Path(__file__).with_name("hostile")


@pytest.mark.parametrize("task,reward", [
    pytest.param("halfcheetah-run", "halfcheetah_run.py", marks=pytest.mark.slow),
    ("inverted-double-pendulum-balance", "inverted_double_pendulum_balance.py"),
])
def test_train_writes_metrics_tensorboard_model_and_summary(cli, tiny_spec, tmp_path, task, reward):
    spec = tiny_spec(task, timesteps=2048)
    out = tmp_path / "out"
    code, stdout, stderr = cli("train", spec, EXAMPLES / reward, "--seed", "3", "--out", out)
    assert code == 0, stderr
    assert "fitness" in stdout and "success rate" in stdout
    summary = json.loads((out / "summary.json").read_text())
    for key in ("timesteps", "wall_s"):
        assert key in summary
    assert "fitness" not in summary  # the training worker's numbers decide nothing
    assert summary["timesteps"] >= 2048 and summary["seed"] == 3
    assert set(summary["phases_s"]) == {"prepare", "sandbox", "check", "learn"}  # where a job's time went
    assert 0 <= summary["learning_curve_s"] <= summary["phases_s"]["learn"]
    records, problems = read_jsonl(out / "metrics.jsonl")
    assert not problems
    kinds = {r["kind"] for r in records}
    assert kinds == {"train", "eval"}
    assert all(r["reported_by"] == "training worker" for r in records)
    assert all(set(r["components"]) for r in records if r["kind"] == "train")
    assert list((out / "tb").rglob("events.out.tfevents*"))
    assert (out / "model.zip").stat().st_size > 1000
    assert (out / "policy.safetensors").read_bytes() == (out / "eval" / "policy.safetensors").read_bytes()
    evaluation = json.loads((out / "eval" / "evaluation.json").read_text())
    assert len(evaluation["fitness"]) == len(evaluation["seeds"]) == 2 and evaluation["fitness_se"] is not None
    assert evaluation["timesteps"] == summary["timesteps"]
    episodes, _ = read_jsonl(out / "eval" / "eval_episodes.jsonl")
    assert [e["seed"] for e in episodes] == evaluation["seeds"]
    assert episodes and all("state_stats" in e and "fitness" in e for e in episodes)
    assert not (out / "eval_episodes.jsonl").exists() and not (out / "trajectories.npz").exists()


def test_wrapper_replaces_and_hides_the_native_reward():
    calls = []

    def reward(state, action, next_state):
        calls.append((state.body("torso").pos[0], next_state.body("torso").pos[0]))
        return 0.25, {"constant": 0.25}

    env = ApplyReward(gym.make("HalfCheetah-v5"), reward_fn=reward)
    env.reset(seed=0)
    _, r, _, _, info = env.step(env.action_space.sample())
    assert r == 0.25
    assert not any(is_native_reward_key(k) for k in info)
    assert calls[0][0] != calls[0][1]  # state and next_state are different snapshots


def test_state_arrays_are_read_only():
    def mutate(state, action, next_state):
        next_state.qpos[0] = 99.0
        return 0.0, {}

    env = ApplyReward(gym.make("Hopper-v5"), reward_fn=mutate)
    env.reset(seed=0)
    with pytest.raises(ValueError, match="read-only"):
        env.step(env.action_space.sample())


def test_reward_wrapper_trains_a_few_steps_with_sb3():
    from stable_baselines3 import PPO

    env = RewardWrapper(gym.make("HalfCheetah-v5"), EXAMPLES / "halfcheetah_run.py")
    model = PPO("MlpPolicy", env, n_steps=64, batch_size=32, n_epochs=1, verbose=0)
    model.learn(128)
    assert model.num_timesteps >= 128


def test_worker_that_rewrites_parent_files_is_rejected_and_files_restored(tiny_spec, tmp_path):
    """With the AST gate bypassed, a reward can write into its own folder: the parent restores and rejects."""
    import os

    from rewardsmith.workers.job import WorkerJob
    from rewardsmith.workers.run import run_job

    spec = tiny_spec("inverted-double-pendulum-balance", timesteps=256)
    cand = tmp_path / "cand"
    cand.mkdir()
    reward = cand / "reward.py"
    reward.write_text(
        "import os\n"
        "def compute_reward(state, action, next_state):\n"
        "    here = os.getcwd()\n"
        "    open(os.path.join(here, 'reward.py'), 'w').write('# gone')\n"
        "    open(os.path.join(here, 'candidate.json'), 'w').write('{\"fitness\": 1e9}')\n"
        "    os.symlink('/etc/hostname', os.path.join(here, 'analysis.json'))\n"
        "    return 1.0, {}\n")
    original = reward.read_text()
    (cand / "candidate.json").write_text('{"fitness": null}')
    job = WorkerJob(task_path=spec, reward_path=reward, out_dir=cand, timesteps=256, ast_gate=False)
    result = run_job(job)
    assert result.status == "rejected"
    assert "reward.py" in result.error and "candidate.json" in result.error
    assert reward.read_text() == original
    assert (cand / "candidate.json").read_text() == '{"fitness": null}'
    assert not os.path.islink(cand / "analysis.json")


@pytest.mark.slow
def test_sac_trains_from_the_spec(cli, tiny_spec, tmp_path):
    spec = tiny_spec("inverted-double-pendulum-balance", algo="SAC", timesteps=300, eval_freq=150,
                     hyperparams={"learning_starts": 100, "buffer_size": 2000, "batch_size": 32, "train_freq": 4})
    out = tmp_path / "sac"
    code, _, err = cli("train", spec, EXAMPLES / "inverted_double_pendulum_balance.py", "--out", out)
    assert code == 0, err
    summary = json.loads((out / "summary.json").read_text())
    assert summary["algo"] == "SAC" and summary["timesteps"] >= 300
    assert summary["device"] == "cpu"


@pytest.mark.slow
def test_train_refuses_a_reward_over_run_s_per_call_budget(cli, tiny_spec, tmp_path):
    """`train` times the reward as `run`'s critic does and refuses one that `run` would reject as too slow, before
    any training (the issue: one `train` of this reward took 282 s)."""
    started = time.monotonic()
    code, _, err = cli("train", tiny_spec("inverted-double-pendulum-balance"), HOSTILE / "slow_reward.py",
                       "--out", tmp_path / "out")
    err = " ".join(err.split())
    assert code == 2 and "too slow to train" in err and "ms (median); the budget is 2 ms" in err, err
    assert not (tmp_path / "out" / "summary.json").exists()  # no training started
    assert time.monotonic() - started < 60


@pytest.mark.slow
def test_train_stops_a_reward_that_gets_slow_during_training(cli, tiny_spec, tmp_path):
    """A reward cheap while the critic times it and slow later is stopped by the per-call budget `run` gives
    training jobs (10x the measured median), with that reason, instead of running to the wall limit."""
    started = time.monotonic()
    code, out, err = cli("train", tiny_spec("inverted-double-pendulum-balance", timesteps=4096),
                         HOSTILE / "late_slow_reward.py", "--out", tmp_path / "out")
    err = " ".join(err.split())
    assert code == 2 and "got too slow during training" in err and "stopped early" in err, (out, err)
    assert "ms per reward call at most" in out
    assert time.monotonic() - started < 120  # the job's wall limit would be 180 + 4096/40 s
