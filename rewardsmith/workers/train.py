"""The training worker: SB3 PPO/SAC on a task with a reward file, measured by the task's trusted fitness.

Runs inside a sandboxed worker process (`rewardsmith.workers.main train JOB`). Writes into the job's folder:
`metrics.jsonl` (kind "train": per-component episode sums during training; kind "eval": periodic
fitness on a separate env), TensorBoard logs under `tb/`, `model.zip`, `eval_episodes.jsonl` (the final
evaluation, one line per episode with state statistics), `trajectories.npz` (the final evaluation's
states and actions, see `rewardsmith.workers.trajectories`) and `summary.json`.
"""

from __future__ import annotations

import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np
from stable_baselines3.common.callbacks import BaseCallback

from rewardsmith.files import append_jsonl, write_json_atomic
from rewardsmith.reward.wrappers import ApplyReward
from rewardsmith.run_folder.records import EPISODES_FILE, METRICS_FILE, SUMMARY_FILE, TRAJECTORIES_FILE
from rewardsmith.task import TaskSpec, make_env, make_scorer
from rewardsmith.workers.job import HEARTBEAT_FILE, WorkerJob
from rewardsmith.workers.trajectories import TrajectoryRecorder


def make_reward_env(spec: TaskSpec, reward_fn, source: str, **env_overrides: Any) -> ApplyReward:
    """The task env with the reward in place and the trusted scorer alongside."""
    return ApplyReward(make_env(spec, **env_overrides), reward_fn=reward_fn, scorer=make_scorer(spec), source=source)


def run_train_job(job: WorkerJob) -> dict[str, Any]:
    """Train one reward (or a baseline) and write the results; returns the summary."""
    import torch
    from stable_baselines3.common.logger import configure
    from stable_baselines3.common.monitor import Monitor
    from stable_baselines3.common.utils import set_random_seed
    from stable_baselines3.common.vec_env import DummyVecEnv

    from rewardsmith.workers.main import enter_sandbox, load_job_reward, read_job_reward

    started = time.perf_counter()
    torch.set_num_threads(1)
    spec = job.task()
    out = job.out_dir
    timesteps = job.timesteps or spec.train.timesteps
    set_random_seed(job.seed)
    source = read_job_reward(job) if job.reward_source == "candidate" else ""
    reward = LateReward()
    train_env = DummyVecEnv(
        [lambda: Monitor(make_reward_env(spec, reward, job.reward_source)) for _ in range(spec.train.n_envs)]
    )
    train_env.seed(job.seed)
    eval_env = make_reward_env(spec, reward, job.reward_source)
    model = _build_model(spec, train_env, job)
    layers = enter_sandbox(job)  # before the reward's code runs and before any logger thread starts
    if job.reward_source == "candidate":
        reward.fn = load_job_reward(job, source)
    _warm_up(train_env)  # checks the reward contract once before training
    model.set_logger(configure(str(out / "tb"), ["tensorboard"]))

    eval_freq = min(spec.train.eval_freq, max(timesteps // 4, 1))  # a short budget still gets a learning curve
    callbacks = [
        HeartbeatCallback(out / HEARTBEAT_FILE, timesteps),
        ComponentLogCallback(out / METRICS_FILE, every=max(eval_freq // 2, 256), started=started),
        FitnessEvalCallback(
            eval_env, out / METRICS_FILE, eval_freq, spec.train.eval_episodes, seed=job.seed + 10_000, started=started
        ),
    ]
    model.learn(total_timesteps=timesteps, callback=callbacks)
    model.save(out / "model.zip")

    recorder = TrajectoryRecorder()
    episodes = evaluate(
        model,
        eval_env,
        int(job.options.get("final_eval_episodes", spec.train.eval_episodes)),
        seed=job.seed + 20_000,
        record_states=True,
        recorder=recorder,
    )
    for episode in episodes:
        append_jsonl(out / EPISODES_FILE, episode)
    recorder.save(out / TRAJECTORIES_FILE)
    final = aggregate(episodes)
    wall_s = round(time.perf_counter() - started, 3)
    append_jsonl(
        out / METRICS_FILE,
        {"kind": "eval", "timesteps": int(model.num_timesteps), "wall_s": wall_s, "final": True, **final},
    )
    summary = {
        "status": "ok",
        **final,
        "timesteps": int(model.num_timesteps),
        "wall_s": wall_s,
        "algo": spec.train.algo,
        "seed": job.seed,
        "device": str(model.device),
        "device_requested": job.device,
        "reward_source": job.reward_source,
        "task": spec.name,
        "sandbox": layers,
    }
    write_json_atomic(out / SUMMARY_FILE, summary)
    return summary


class LateReward:
    """The candidate's reward, loaded only after the worker is locked down; until then it is unset."""

    fn = None

    def __call__(self, state, action, next_state):
        return self.fn(state, action, next_state)


def _warm_up(env) -> None:
    """One reset and step: the reward contract is checked once, with a clear error, before training."""
    env.reset()
    env.step(np.array([env.action_space.sample() for _ in range(env.num_envs)]))
    env.reset()


def _build_model(spec: TaskSpec, env, job: WorkerJob):
    from stable_baselines3 import PPO, SAC

    algo = {"PPO": PPO, "SAC": SAC}[spec.train.algo]
    hyperparams = {**spec.train.hyperparams, **job.options.get("hyperparams", {})}
    return algo(
        "MlpPolicy",
        env,
        seed=job.seed,
        device=job.device,
        verbose=0,
        policy_kwargs=spec.train.sb3_policy_kwargs() or None,
        **hyperparams,
    )


def evaluate(
    model,
    env: ApplyReward,
    episodes: int,
    *,
    seed: int,
    record_states: bool = False,
    recorder: TrajectoryRecorder | None = None,
) -> list[dict]:
    """Deterministic episodes of the policy; one stats dict per episode (with state statistics if asked);
    a `recorder` also keeps every episode's states and actions."""
    results = []
    for i in range(episodes):
        obs, _ = env.reset(seed=seed + i)
        tracker = StateStats(env) if record_states else None
        if recorder:
            recorder.start(env.state)
        while True:
            action, _ = model.predict(obs, deterministic=True)
            obs, _, terminated, truncated, info = env.step(action)
            if tracker:
                tracker.add(env.state)
            if recorder:
                recorder.step(action, env.state)
            if terminated or truncated:
                stats = info["episode_stats"]
                if tracker:
                    stats["state_stats"] = tracker.summary()
                if recorder:
                    recorder.finish(stats["fitness"])
                results.append({"episode": i, **stats})
                break
    return results


def aggregate(episodes: list[dict]) -> dict[str, Any]:
    """Means over evaluation episodes: fitness, success rate, length, return and components."""
    components: dict[str, list[float]] = defaultdict(list)
    for e in episodes:
        for name, value in e["components"].items():
            components[name].append(value)
    fitness = [e["fitness"] for e in episodes]
    return {
        "fitness": float(np.mean(fitness)),
        "fitness_std": float(np.std(fitness)),
        "success_rate": float(np.mean([e["success"] for e in episodes])),
        "ep_len": float(np.mean([e["length"] for e in episodes])),
        "return": float(np.mean([e["return"] for e in episodes])),
        "native_return": float(np.mean([e["native_return"] for e in episodes])),
        "components": {k: float(np.mean(v)) for k, v in components.items()},
        "episodes": len(episodes),
    }


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


class HeartbeatCallback(BaseCallback):
    """Touch a heartbeat file with "timesteps total" so the supervisor sees progress (and stalls)."""

    def __init__(self, path: Path, total: int, every: int = 256) -> None:
        super().__init__()
        self.path, self.total, self.every = path, total, every

    def _on_step(self) -> bool:
        if self.n_calls % self.every == 0:
            self.path.write_text(f"{self.num_timesteps} {self.total}")
        return True


class ComponentLogCallback(BaseCallback):
    """Per-component episode sums during training, to metrics.jsonl (kind "train") and TensorBoard."""

    def __init__(self, path: Path, every: int, started: float) -> None:
        super().__init__()
        self.path, self.every, self.started = path, every, started
        self.episodes: list[dict] = []
        self.next_flush = every

    def _on_step(self) -> bool:
        for info in self.locals.get("infos", ()):
            if "episode_stats" in info:
                self.episodes.append(info["episode_stats"])
        if self.num_timesteps >= self.next_flush and self.episodes:
            self.flush()
        return True

    def _on_training_end(self) -> None:
        if self.episodes:
            self.flush()

    def flush(self) -> None:
        stats = aggregate(self.episodes)
        for name, value in stats["components"].items():
            self.logger.record(f"reward_components/{name}", value)
        self.logger.record("train/fitness", stats["fitness"])
        append_jsonl(
            self.path,
            {
                "kind": "train",
                "timesteps": int(self.num_timesteps),
                "wall_s": round(time.perf_counter() - self.started, 3),
                **{k: stats[k] for k in ("fitness", "success_rate", "ep_len", "return", "components", "episodes")},
            },
        )
        self.episodes = []
        self.next_flush = self.num_timesteps + self.every


class FitnessEvalCallback(BaseCallback):
    """Every `eval_freq` steps, run deterministic episodes on a separate env and log fitness (kind "eval")."""

    def __init__(self, env: ApplyReward, path: Path, eval_freq: int, episodes: int, seed: int, started: float) -> None:
        super().__init__()
        self.env, self.path, self.eval_freq, self.n_episodes = env, path, eval_freq, episodes
        self.seed, self.started = seed, started
        self.next_eval = eval_freq

    def _on_step(self) -> bool:
        if self.num_timesteps >= self.next_eval:
            self.next_eval += self.eval_freq
            self.run_eval()
        return True

    def run_eval(self) -> None:
        stats = aggregate(evaluate(self.model, self.env, self.n_episodes, seed=self.seed))
        for key in ("fitness", "success_rate", "ep_len", "return"):
            self.logger.record(f"eval/{key}", stats[key])
        self.logger.dump(self.num_timesteps)
        append_jsonl(
            self.path,
            {
                "kind": "eval",
                "timesteps": int(self.num_timesteps),
                "wall_s": round(time.perf_counter() - self.started, 3),
                **stats,
            },
        )
