"""The evaluation worker (`evaluate` mode): the trusted measurement of a trained policy.

It never loads reward code. It rebuilds the policy from the task spec (algorithm, `policy_kwargs`, the env's
spaces) and a `policy.safetensors` file (size-capped, parsed strictly: exactly the expected tensor names,
shapes and dtypes, finite values), locks itself down like every worker, then runs one deterministic episode per
seed the parent chose after training ended, each to the env's full time limit, with the task's trusted scorer.

Its folder is `eval/` below the training folder, emptied and recreated by the parent after the training worker
ended, with the parent's copy of the weights as its only input; it writes there: `evaluation.json` (an
`Evaluation` record), `eval_episodes.jsonl` (one line per episode with state statistics, for the analyzer),
`trajectories.npz` (the episodes' states and actions, for the screen) and `summary.json`.
"""

from __future__ import annotations

import itertools
import math
import time
from pathlib import Path
from typing import Any

import numpy as np

from rewardsmith.errors import RewardFileError, RewardsmithError
from rewardsmith.files import append_jsonl, read_capped, write_json_atomic
from rewardsmith.reward.wrappers import ApplyReward
from rewardsmith.run_folder.names import HEARTBEAT_FILE
from rewardsmith.run_folder.records import (
    EPISODES_FILE,
    EVALUATION_FILE,
    SUMMARY_FILE,
    TRAJECTORIES_FILE,
    WEIGHTS_FILE,
    Evaluation,
)
from rewardsmith.task import TaskSpec, make_env, make_scorer
from rewardsmith.workers.job import WorkerJob
from rewardsmith.workers.lean_torch import lean_torch
from rewardsmith.workers.trajectories import TrajectoryRecorder

MAX_WEIGHTS_BYTES = 256 << 20
HEARTBEAT_EVERY = 100
"""Env steps between the evaluation's progress reports."""


def run_evaluate_job(job: WorkerJob) -> dict[str, Any]:
    """Rebuild the policy from the weights (or take random actions: `random_policy`), lock down, run the parent's
    seeds; write the evaluation."""
    from rewardsmith.workers.main import enter_sandbox

    lean_torch()
    spec = job.task()
    seeds = [int(s) for s in job.options.get("seeds", [])]
    if not seeds:
        raise RewardsmithError("the evaluation job names no seeds")
    env = ApplyReward(make_env(spec), scorer=make_scorer(spec), source="native")
    if job.options.get("random_policy"):  # the screen's reference episodes: uniform random actions, no weights
        policy: Any = RandomPolicy(env.action_space, seeds[0])
    else:
        policy = build_policy(spec, env.observation_space, env.action_space)
        load_weights(policy, weights_path(job))
    layers = enter_sandbox(job)
    recorder = TrajectoryRecorder(env)
    episodes = run_episodes(policy, env, seeds, recorder, heartbeat=job.out_dir / HEARTBEAT_FILE)
    for episode in episodes:
        append_jsonl(job.out_dir / EPISODES_FILE, episode)
    recorder.save(job.out_dir / TRAJECTORIES_FILE)
    evaluation = summarize(episodes, timesteps=int(job.options.get("trained_timesteps", 0)))
    write_json_atomic(job.out_dir / EVALUATION_FILE, evaluation.model_dump())
    summary = {
        "status": "evaluated",
        "episodes": len(episodes),
        "sandbox": layers,
        "cpu_s": round(time.process_time(), 3),
    }
    write_json_atomic(job.out_dir / SUMMARY_FILE, summary)
    return summary


class RandomPolicy:
    """Uniform random actions with SB3's `predict` signature (seeded, so an evaluation can be replayed)."""

    def __init__(self, action_space, seed: int) -> None:
        self.space = action_space
        self.space.seed(seed)

    def predict(self, obs, deterministic: bool = True):
        return self.space.sample(), None


def weights_path(job: WorkerJob) -> Path:
    """The one file a candidate's worker wrote that this worker reads: `options["weights"]["policy"]`, by
    default the parent's copy in this worker's own folder."""
    return Path(job.options.get("weights", {}).get("policy", job.out_dir / WEIGHTS_FILE))


def policy_class(spec: TaskSpec):
    """The SB3 policy class the training worker builds for this spec (its "MlpPolicy")."""
    from stable_baselines3 import PPO, SAC

    algo: Any = {"PPO": PPO, "SAC": SAC}[spec.train.algo]
    return algo.policy_aliases["MlpPolicy"]


def build_policy(spec: TaskSpec, observation_space, action_space):
    """A fresh policy of the spec's algorithm and architecture, on the CPU, in evaluation mode."""
    kwargs = spec.train.sb3_policy_kwargs()
    if spec.train.hyperparams.get("use_sde"):
        kwargs["use_sde"] = True
    policy = policy_class(spec)(observation_space, action_space, lambda _: 0.0, **kwargs)
    policy.set_training_mode(False)
    return policy


def load_weights(policy, path: Path, max_bytes: int = MAX_WEIGHTS_BYTES) -> None:
    """Load a `policy.safetensors` into `policy`, strictly: a regular file under `max_bytes`, exactly the
    policy's tensor names, shapes and dtypes, every value finite. Raises RewardFileError otherwise (the weights
    come from the candidate's training worker, so a bad file is the candidate's fault)."""
    from safetensors import SafetensorError
    from safetensors.torch import load

    data = _read_regular(path, max_bytes)
    try:
        tensors = load(data)
    except (SafetensorError, ValueError, RuntimeError) as e:
        raise RewardFileError(f"{path.name}: not a valid safetensors file ({e})") from None
    expected = policy.state_dict()
    if set(tensors) != set(expected):
        missing, extra = sorted(set(expected) - set(tensors)), sorted(set(tensors) - set(expected))
        raise RewardFileError(
            f"{path.name}: tensors do not match the policy (missing {missing[:5]}, extra {extra[:5]})"
        )
    for name, tensor in tensors.items():
        want = expected[name]
        if tensor.shape != want.shape or tensor.dtype != want.dtype:
            raise RewardFileError(
                f"{path.name}: tensor {name} is {tuple(tensor.shape)} {tensor.dtype}, "
                f"expected {tuple(want.shape)} {want.dtype}"
            )
        if tensor.is_floating_point() and not bool(tensor.isfinite().all()):
            raise RewardFileError(f"{path.name}: tensor {name} holds NaN or infinite values")
    policy.load_state_dict(tensors, strict=True)


def _read_regular(path: Path, max_bytes: int) -> bytes:
    data = read_capped(path, max_bytes)
    if data is None:
        raise RewardFileError(
            f"{path.name}: the policy weights are missing, not a regular file or over {max_bytes >> 20} MiB"
        )
    return data


def run_episodes(
    policy,
    env: ApplyReward,
    seeds: list[int],
    recorder: TrajectoryRecorder | None = None,
    heartbeat: Path | None = None,
) -> list[dict]:
    """One deterministic episode per seed, to the env's own end; one stats dict per episode. `heartbeat` gets
    "steps done, total" (total: every episode at the env's time limit; an episode that ends early counts whole)."""
    limit = int(getattr(env.spec, "max_episode_steps", None) or 1000)
    results = []
    for i, seed in enumerate(seeds):
        obs, _ = env.reset(seed=seed)
        tracker = StateStats(env)
        if recorder:
            recorder.start(env.state)
        for step in itertools.count(1):
            if heartbeat is not None and step % HEARTBEAT_EVERY == 0:
                heartbeat.write_text(f"{i * limit + min(step, limit)} {len(seeds) * limit}")
            action, _ = policy.predict(obs, deterministic=True)
            obs, _, terminated, truncated, info = env.step(action)
            tracker.add(env.state)
            if recorder:
                recorder.step(action, env.state)
            if terminated or truncated:
                stats = info["episode_stats"]
                if recorder:
                    recorder.finish(stats["fitness"])
                results.append(
                    {
                        "episode": i,
                        "seed": seed,
                        "fitness": stats["fitness"],
                        "success": stats["success"],
                        "length": stats["length"],
                        "termination": stats["termination"],
                        "native_return": stats["native_return"],
                        "state_stats": tracker.summary(),
                    }
                )
                break
    return results


def summarize(episodes: list[dict], *, timesteps: int = 0) -> Evaluation:
    """The `Evaluation` record of some episodes: per-episode values, mean, std and standard error."""
    fitness = [float(e["fitness"]) for e in episodes]
    n = len(fitness)
    std = float(np.std(fitness, ddof=1)) if n > 1 else 0.0
    return Evaluation(
        fitness=fitness,
        success=[bool(e["success"]) for e in episodes],
        lengths=[int(e["length"]) for e in episodes],
        ends=["time limit" if e["termination"] == "truncated" else "terminated" for e in episodes],
        seeds=[int(e["seed"]) for e in episodes],
        timesteps=timesteps,
        fitness_mean=float(np.mean(fitness)) if n else None,
        fitness_std=std if n else None,
        fitness_se=std / math.sqrt(n) if n > 1 else None,
        success_rate=float(np.mean([e["success"] for e in episodes])) if n else None,
    )


class StateStats:
    """Min/mean/max of the root body position and every hinge/slide joint over one episode."""

    def __init__(self, env: ApplyReward) -> None:
        schema = env.schema
        self.root = schema.body_names[1] if schema and len(schema.body_names) > 1 else None
        self.joints = [n for n, slot in schema.joints.items() if slot.kind in ("hinge", "slide")] if schema else []
        self.rows: list[list[float]] = []

    def add(self, state) -> None:
        row = list(state.body(self.root).pos) if self.root else []
        row += [state.joint(n).qpos for n in self.joints]
        self.rows.append(row or list(state.obs[:8]))

    def summary(self) -> dict[str, dict[str, float]]:
        names = ([f"{self.root}.{a}" for a in "xyz"] if self.root else []) + [f"{n}.qpos" for n in self.joints]
        data = np.asarray(self.rows, dtype=float)
        names = names or [f"obs[{i}]" for i in range(data.shape[1])]
        return {
            name: {
                "mean": round(float(col.mean()), 4),
                "min": round(float(col.min()), 4),
                "max": round(float(col.max()), 4),
                "last": round(float(col[-1]), 4),
            }
            for name, col in zip(names, data.T)
        }
