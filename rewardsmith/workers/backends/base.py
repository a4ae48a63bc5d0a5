"""The training-backend seam: "train this reward on this task for N env steps, from these optional weights".

A backend is a class with three methods, called in this order by the training worker
(`rewardsmith.workers.train`), which owns everything around them (reading the job, the AST gate, the sandbox,
loading the candidate's reward, the per-call budget, `summary.json`):

1. `prepare(request)`: before lock-down. Import what the learner needs, build the envs (`request.reward_env`)
   and the model, load `request.checkpoint` if set. No reward code runs yet (`request.reward.fn` is None);
   threads a library starts here must be able to live with the sandbox's seccomp filter and rlimits.
2. `check()`: after lock-down, with the reward loaded: one reset and step of every train env, so that a
   broken reward fails with its own clear error before training.
3. `learn()`: train for `request.timesteps` env steps, write the learning logs through `request.log`
   (heartbeat, kind "train" per-component sums, kind "eval" learning-curve points), and return a
   `TrainOutcome` whose `weights` are the policy as safetensors bytes in the layout of SB3's `MlpPolicy`
   for the spec's algorithm and `policy_kwargs` (the evaluation worker, the only trusted scorer, loads them
   into that policy strictly, so another learner must export the same tensor names, shapes and dtypes).

Nothing a backend writes is trusted: fitness is measured by the evaluation worker on the weights alone.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections import defaultdict, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

from rewardsmith.errors import RewardFileError
from rewardsmith.files import append_jsonl
from rewardsmith.reward.progress import ProgressBonus, ProgressCounts
from rewardsmith.reward.wrappers import ApplyReward, RewardSource
from rewardsmith.run_folder.names import HEARTBEAT_FILE, METRICS_FILE
from rewardsmith.task import TaskSpec, make_env, make_scorer
from rewardsmith.workers.job import WorkerJob

EVAL_ENVS = 8
"""Learning-curve episodes run side by side (one policy call per step for all of them) on at most this many envs."""
BUDGET_WINDOW = 64
"""Reward calls in the sliding window; the worker stops once over half of them exceeded the budget."""


class LateReward:
    """The candidate's reward, loaded only after the worker is locked down; until then it is unset.

    With a per-call `budget_s`, once `watch` is set the cost of each call is measured, and when more than half
    of the last `BUDGET_WINDOW` calls went over the budget the training stops with a RewardFileError."""

    fn: Any = None
    source: str | None = None
    """The module's source as the gate passed it (the MJX backend rewrites its branches when it does not trace)."""
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


def make_reward_env(
    spec: TaskSpec, reward_fn, source: RewardSource, *, scored: bool = True, **env_overrides: Any
) -> ApplyReward:
    """The task env with the reward in place and, if `scored` (or for the sparse baseline), the trusted scorer
    alongside."""
    scorer = make_scorer(spec) if scored or source == "sparse" else None
    return ApplyReward(make_env(spec, **env_overrides), reward_fn=reward_fn, scorer=scorer, source=source)


def episode_limit(env, default: int = 1000) -> int:
    """The env's episode limit in steps (its `TimeLimit`), or `default` without one."""
    while env is not None:
        if isinstance(env, gym.wrappers.TimeLimit):
            return int(env._max_episode_steps)
        env = getattr(env, "env", None)
    return default


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


def run_episodes(act: Callable[[np.ndarray], Any], envs: list, episodes: int, *, seed: int) -> list[dict]:
    """`episodes` episodes of the policy `act(batch of obs) -> batch of actions` (a learning-curve point,
    reported by the training worker), episode i from `seed + i`, stepped side by side on `envs` so that the
    policy runs once per step for all live episodes (an env that finishes takes the next episode); one stats
    dict per episode, in order."""
    results: dict[int, dict] = {}
    live: dict[int, tuple[int, Any]] = {}  # env index -> (episode, its latest obs)
    todo = iter(range(episodes))

    def start(k: int) -> None:
        episode = next(todo, None)
        if episode is not None:
            live[k] = (episode, envs[k].reset(seed=seed + episode)[0])

    for k in range(len(envs)):
        start(k)
    while live:
        order = list(live)
        actions = act(np.stack([live[k][1] for k in order]))
        for k, action in zip(order, actions, strict=True):
            episode = live[k][0]
            obs, _, terminated, truncated, info = envs[k].step(action)
            if terminated or truncated:
                results[episode] = {"episode": episode, **info["episode_stats"]}
                del live[k]
                start(k)
            else:
                live[k] = (episode, obs)
    return [results[i] for i in range(episodes)]


@dataclass
class TrainLog:
    """The training worker's reports in the job's folder: the heartbeat the supervisor watches, and the
    learning logs in `metrics.jsonl` (all "reported by the training worker", never trusted)."""

    out_dir: Path
    total: int
    started: float

    def heartbeat(self, done: int) -> None:
        """Env steps done by this job so far (a continued job counts from 0)."""
        (self.out_dir / HEARTBEAT_FILE).write_text(f"{done} {self.total}")

    def train_point(self, timesteps: int, episodes: list[dict]) -> dict[str, Any]:
        """Per-component episode sums of finished training episodes (kind "train"); returns the aggregate."""
        stats = aggregate(episodes)
        keys = ("fitness", "success_rate", "ep_len", "return", "components", "episodes")
        self._append("train", timesteps, {k: stats[k] for k in keys})
        return stats

    def eval_point(self, timesteps: int, episodes: list[dict]) -> dict[str, Any]:
        """A learning-curve point from scored deterministic episodes (kind "eval"); returns the aggregate."""
        stats = aggregate(episodes)
        stats["pairs"] = [[e["return"], e["fitness"]] for e in episodes]  # for the analyzer's correlation
        self._append("eval", timesteps, stats)
        return stats

    def _append(self, kind: str, timesteps: int, stats: dict[str, Any]) -> None:
        wall = round(time.perf_counter() - self.started, 3)
        record = {"kind": kind, "reported_by": "training worker", "timesteps": int(timesteps), "wall_s": wall}
        append_jsonl(self.out_dir / METRICS_FILE, {**record, **stats})


@dataclass
class TrainRequest:
    """One training, as the worker hands it to a backend."""

    job: WorkerJob
    spec: TaskSpec
    timesteps: int
    """Env steps to train for in this job (on top of `resume_timesteps`)."""
    reward: LateReward
    log: TrainLog
    progress: LateProgress | None = None
    counts: ProgressCounts | None = None
    """With the progress strategy: the count table shared by the job's train envs (`request.reward_env`)."""
    checkpoint: Path | None = None
    """A `policy.safetensors` (SB3 `MlpPolicy` layout) to start from, or None for a fresh policy."""
    resume_timesteps: int = 0
    hyperparams: dict[str, Any] = field(default_factory=dict)
    """The spec's `[train] hyperparams` with the job's overrides."""

    @property
    def seed(self) -> int:
        """The job's seed."""
        return self.job.seed

    @property
    def out_dir(self) -> Path:
        """The job's folder (the only place a backend may write)."""
        return self.job.out_dir

    @property
    def n_envs(self) -> int:
        """Train envs: the job option `n_envs` (a bench's override), else the spec's `[train] n_envs`."""
        return int(self.job.options.get("n_envs") or self.spec.train.n_envs)

    @property
    def spacing(self) -> int:
        """Env steps between points of the training's logs: the spec's `eval_freq`, or a quarter of a shorter job
        (so it still gets a few)."""
        return min(self.spec.train.eval_freq, max(self.timesteps // 4, 1))

    def eval_freq(self, episode_steps: int) -> int:
        """Env steps between learning-curve points: `spacing`, but never more points than the job's steps pay
        for: a point costs up to `eval_episodes` x `episode_steps` (the env's episode limit) env steps of its own,
        and a short job gets at most its steps' worth of them (at least one point, at the end)."""
        timesteps = max(self.timesteps, 1)
        wanted = timesteps // self.spacing
        affordable = timesteps // max(self.spec.train.eval_episodes * episode_steps, 1)
        return timesteps // max(min(wanted, affordable), 1)

    def reward_env(self, *, scored: bool = False) -> ApplyReward | ProgressBonus:
        """One Gymnasium env of the task with the candidate's (late-loaded) reward or the baseline in place:
        a train env (`scored=False`: no scorer, the progress bonus if on) or a learning-curve env (scored)."""
        env = make_reward_env(self.spec, self.reward, self.job.reward_source, scored=scored)
        if not scored and self.counts is not None and self.progress is not None:
            return ProgressBonus(env, self.progress, self.counts)
        return env


@dataclass
class TrainOutcome:
    """What a backend hands back: the env steps it trained in all (checkpoint's included), the policy's
    weights (safetensors bytes, SB3 `MlpPolicy` layout) and what to add to `summary.json`."""

    timesteps: int
    weights: bytes
    device: str = "cpu"
    summary: dict[str, Any] = field(default_factory=dict)


class TrainingBackend(ABC):
    """A learner behind the seam; see the module docstring for the contract of each method."""

    name = ""
    holds_gpu = False
    """True once `prepare` made a CUDA context: the worker then locks down with `SandboxSettings.gpu`."""

    @abstractmethod
    def prepare(self, request: TrainRequest) -> None:
        """Before lock-down: imports, envs and model, checkpoint weights; no reward code runs."""

    @abstractmethod
    def check(self) -> None:
        """After lock-down, reward loaded: one reset and step of each train env (the reward contract's check)."""

    @abstractmethod
    def learn(self) -> TrainOutcome:
        """Train `request.timesteps` env steps, log through `request.log`, return the weights."""
