"""The training worker: SB3 PPO/SAC on a task with a reward file. Its only trusted output is the policy.

Runs inside a sandboxed worker process (`rewardsmith.workers.main train JOB`) with the candidate's reward
loaded, so nothing it writes decides anything except the policy's weights, which the parent hands to the
evaluation worker (`rewardsmith.workers.evaluate`). Writes into the job's folder: `policy.safetensors` (the
policy's tensors, no pickle), `metrics.jsonl` (kind "train": per-component episode sums during training;
kind "eval": a periodic learning-curve point on a separate env; both "reported by the training worker"),
TensorBoard logs under `tb/`, `model.zip` (SB3's own format, read only by the sandboxed video worker) and
`summary.json` (how the job ran; no fitness).

The train envs carry no scorer (fitness is measured elsewhere), so a step costs the env, the state snapshot
and the reward. The reward's cost per call is watched over a sliding window: with `reward_budget_s` in the
job options, a reward whose calls stay over it is stopped early with a clear error. With `checkpoint`
({"policy": path to an earlier rung's policy.safetensors}) training continues from those weights.

With the progress strategy (`progress` in the job options, `rewardsmith.reward.progress`), each train env
adds the count bonus of the candidate's `progress` (`ProgressBonus`, one count table shared by the job's envs,
fresh in every job: a resumed rung counts from zero) and logs it as the components `progress_bonus` and
`progress_0`, ...; the learning-curve env and the evaluation worker get no bonus.
"""

from __future__ import annotations

import time
from collections import defaultdict, deque
from pathlib import Path
from typing import Any

import numpy as np
from stable_baselines3.common.callbacks import BaseCallback

from rewardsmith.errors import RewardFileError
from rewardsmith.files import append_jsonl, write_bytes_atomic, write_json_atomic
from rewardsmith.reward.progress import ProgressBonus, ProgressCounts, ProgressOptions, load_with_progress
from rewardsmith.reward.wrappers import ApplyReward, RewardSource
from rewardsmith.run_folder.names import HEARTBEAT_FILE, METRICS_FILE, MODEL_FILE, SUMMARY_FILE, WEIGHTS_FILE
from rewardsmith.task import TaskSpec, make_env, make_scorer
from rewardsmith.workers.job import WorkerJob

BUDGET_WINDOW = 64
"""Reward calls in the sliding window; the worker stops once over half of them exceeded the budget."""


def make_reward_env(
    spec: TaskSpec, reward_fn, source: RewardSource, *, scored: bool = True, **env_overrides: Any
) -> ApplyReward:
    """The task env with the reward in place and, if `scored` (or for the sparse baseline), the trusted scorer
    alongside."""
    scorer = make_scorer(spec) if scored or source == "sparse" else None
    return ApplyReward(make_env(spec, **env_overrides), reward_fn=reward_fn, scorer=scorer, source=source)


def run_train_job(job: WorkerJob) -> dict[str, Any]:
    """Train one reward (or a baseline) and write the policy and the training worker's reports; returns the
    summary."""
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
    budget = job.options.get("reward_budget_s")
    reward = LateReward(float(budget) if budget else None)
    progress_options = ProgressOptions.from_job(job.options) if job.reward_source == "candidate" else None
    progress = LateProgress(float(budget) if budget else None)
    counts = ProgressCounts(progress_options) if progress_options else None

    def train_env_fn():
        env = make_reward_env(spec, reward, job.reward_source, scored=False)
        return Monitor(ProgressBonus(env, progress, counts) if counts is not None else env)

    train_env = DummyVecEnv([train_env_fn for _ in range(spec.train.n_envs)])
    train_env.seed(job.seed)
    eval_env = make_reward_env(spec, reward, job.reward_source)
    model = _build_model(spec, train_env, job)
    done_before = _load_checkpoint(model, job)
    layers = enter_sandbox(job)  # before the reward's code runs and before any logger thread starts
    if progress_options is not None:
        reward.fn, progress.fn = load_with_progress(source, filename=str(job.reward_path), gate=job.ast_gate)
        if progress.fn is None:
            raise RewardFileError(f"{job.reward_path}: the progress strategy is on but it defines no `progress(state)`")
    elif job.reward_source == "candidate":
        reward.fn = load_job_reward(job, source)
    _warm_up(train_env)  # checks the reward contract once before training
    if counts is not None:
        counts.counts.clear()  # the warm-up's visits are not training's
    reward.watch = progress.watch = True
    model.set_logger(configure(str(out / "tb"), ["tensorboard"]))

    eval_freq = min(spec.train.eval_freq, max(timesteps // 4, 1))  # a short budget still gets a learning curve
    callbacks = [
        HeartbeatCallback(out / HEARTBEAT_FILE, timesteps, offset=done_before),
        ComponentLogCallback(out / METRICS_FILE, every=max(eval_freq // 2, 256), started=started),
        FitnessEvalCallback(
            eval_env, out / METRICS_FILE, eval_freq, spec.train.eval_episodes, seed=job.seed + 10_000, started=started
        ),
    ]
    model.learn(total_timesteps=timesteps, callback=callbacks, reset_num_timesteps=not done_before)
    write_bytes_atomic(out / WEIGHTS_FILE, policy_bytes(model.policy))
    model.save(out / MODEL_FILE)
    summary = {
        "status": "ok",
        "timesteps": int(model.num_timesteps),
        "wall_s": round(time.perf_counter() - started, 3),
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


def policy_bytes(policy) -> bytes:
    """The policy's state dict as safetensors bytes (tensors only, on the CPU)."""
    from safetensors.torch import save

    return save({k: v.detach().cpu().clone().contiguous() for k, v in policy.state_dict().items()})


def _load_checkpoint(model, job: WorkerJob) -> int:
    """Load the weights of an earlier rung of the same candidate (`continue_from`: a `policy.safetensors`, or an
    SB3 `.zip` of which only `policy.pth` is read, with `torch.load(weights_only=True)`; relative to the job's
    folder) strictly, as the evaluation worker does, and return the env steps they were trained for
    (`resume_timesteps`); 0 without a checkpoint. The optimizer state and SAC's replay buffer start afresh."""
    name = job.options.get("continue_from")
    if not name:
        return 0
    from rewardsmith.workers.evaluate import load_weights

    path = job.out_dir / str(name)
    load_weights(model.policy, path if path.suffix != ".zip" else _zip_weights(path, job.out_dir))
    done = int(job.options.get("resume_timesteps", 0))
    model.num_timesteps = done
    return done


def _zip_weights(path: Path, folder: Path) -> Path:
    """The `policy.pth` state dict of an SB3 model zip, re-saved as safetensors beside it (no pickle is run)."""
    import io
    import zipfile

    import torch

    from rewardsmith.workers.evaluate import MAX_WEIGHTS_BYTES

    try:
        with zipfile.ZipFile(path) as archive:
            info = archive.getinfo("policy.pth")
            if info.file_size > MAX_WEIGHTS_BYTES:
                raise RewardFileError(f"{path.name}: policy.pth is over {MAX_WEIGHTS_BYTES >> 20} MiB")
            state = torch.load(io.BytesIO(archive.read(info)), map_location="cpu", weights_only=True)
    except (OSError, KeyError, zipfile.BadZipFile, RuntimeError, ValueError) as e:
        raise RewardFileError(f"{path.name}: not a readable checkpoint ({e})") from None
    if not isinstance(state, dict) or not all(isinstance(v, torch.Tensor) for v in state.values()):
        raise RewardFileError(f"{path.name}: policy.pth is not a state dict of tensors")
    from safetensors.torch import save

    out = folder / f".checkpoint.{WEIGHTS_FILE}"
    write_bytes_atomic(out, save({str(k): v.contiguous() for k, v in state.items()}))
    return out


class LateReward:
    """The candidate's reward, loaded only after the worker is locked down; until then it is unset.

    With a per-call `budget_s`, once `watch` is set the cost of each call is measured, and when more than half
    of the last `BUDGET_WINDOW` calls went over the budget the training stops with a RewardFileError."""

    fn: Any = None
    what = "reward"

    def __init__(self, budget_s: float | None = None, window: int = BUDGET_WINDOW) -> None:
        self.budget_s, self.window = budget_s, window
        self.watch = False
        self.calls = 0
        self._over: deque[bool] = deque(maxlen=window)
        self._over_count = 0

    def __call__(self, *args: Any) -> Any:
        """The loaded function's result for `args` ((state, action, next_state) for a reward), timed when watched."""
        if self.budget_s is None or not self.watch:
            return self.fn(*args)
        started = time.perf_counter()
        result = self.fn(*args)
        self._record(time.perf_counter() - started)
        return result

    def _record(self, elapsed: float) -> None:
        budget = self.budget_s or 0.0
        over = elapsed > budget
        if len(self._over) == self.window:
            self._over_count -= self._over[0]
        self._over.append(over)
        self._over_count += over
        self.calls += 1
        if self._over_count > self.window // 2:
            raise RewardFileError(
                f"the {self.what} got too slow during training: {self._over_count} of its last {len(self._over)} calls "
                f"took over {budget * 1000:.3g} ms (the per-call budget, 10x the critic's measured median), "
                f"after {self.calls} calls; stopped early"
            )


class LateProgress(LateReward):
    """The candidate's `progress(state)`, loaded after lock-down like `LateReward`, with its own per-call budget
    watch."""

    what = "progress"


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


def evaluate(model, env: ApplyReward, episodes: int, *, seed: int) -> list[dict]:
    """Deterministic episodes of the policy inside the training worker (a learning-curve point, reported by
    the training worker); one stats dict per episode."""
    results = []
    for i in range(episodes):
        obs, _ = env.reset(seed=seed + i)
        while True:
            action, _ = model.predict(obs, deterministic=True)
            obs, _, terminated, truncated, info = env.step(action)
            if terminated or truncated:
                results.append({"episode": i, **info["episode_stats"]})
                break
    return results


def aggregate(episodes: list[dict]) -> dict[str, Any]:
    """Means over episodes: length, return, components, and fitness and success rate where scored (None in
    the unscored train envs)."""
    components: dict[str, list[float]] = defaultdict(list)
    for e in episodes:
        for name, value in e["components"].items():
            components[name].append(value)
    scored = [e for e in episodes if "fitness" in e]
    return {
        "fitness": float(np.mean([e["fitness"] for e in scored])) if scored else None,
        "fitness_std": float(np.std([e["fitness"] for e in scored])) if scored else None,
        "success_rate": float(np.mean([e["success"] for e in scored])) if scored else None,
        "ep_len": float(np.mean([e["length"] for e in episodes])),
        "return": float(np.mean([e["return"] for e in episodes])),
        "native_return": float(np.mean([e["native_return"] for e in episodes])),
        "components": {k: float(np.mean(v)) for k, v in components.items()},
        "episodes": len(episodes),
    }


class HeartbeatCallback(BaseCallback):
    """Touch a heartbeat file with "timesteps total" of this job (a continued job counts from 0, not from the
    steps its checkpoint was trained for) so the supervisor sees progress (and stalls)."""

    def __init__(self, path: Path, total: int, every: int = 256, offset: int = 0) -> None:
        super().__init__()
        self.path, self.total, self.every, self.offset = path, total, every, offset

    def _on_step(self) -> bool:
        if self.n_calls % self.every == 0:
            self.path.write_text(f"{self.num_timesteps - self.offset} {self.total}")
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
        if stats["fitness"] is not None:
            self.logger.record("train/fitness", stats["fitness"])
        append_jsonl(
            self.path,
            {
                "kind": "train",
                "reported_by": "training worker",
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
        episodes = evaluate(self.model, self.env, self.n_episodes, seed=self.seed)
        stats = aggregate(episodes)
        stats["pairs"] = [[e["return"], e["fitness"]] for e in episodes]  # for the analyzer's correlation
        for key in ("fitness", "success_rate", "ep_len", "return"):
            self.logger.record(f"eval/{key}", stats[key])
        self.logger.dump(self.num_timesteps)
        append_jsonl(
            self.path,
            {
                "kind": "eval",
                "timesteps": int(self.num_timesteps),
                "wall_s": round(time.perf_counter() - self.started, 3),
                "reported_by": "training worker",
                **stats,
            },
        )
