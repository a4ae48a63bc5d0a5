"""The SB3 backend (torch): PPO or SAC of stable-baselines3 on `n_envs` in-process Gymnasium envs.

The train envs are stepped in this process one after another (`DummyVecEnv`: the sandbox denies fork, and on
one core a batch of envs pays off through the learner, which then updates on bigger batches less often).
Besides `policy.safetensors` it writes `model.zip` (SB3's own format, read only by the sandboxed video worker)
and TensorBoard logs under `tb/`.
"""

from __future__ import annotations

import time
import warnings

import numpy as np
from stable_baselines3.common.callbacks import BaseCallback

from rewardsmith.errors import TaskSpecError
from rewardsmith.run_folder.names import MODEL_FILE, TB_DIR
from rewardsmith.task import TaskSpec
from rewardsmith.workers.backends.base import (
    EVAL_ENVS,
    TrainingBackend,
    TrainLog,
    TrainOutcome,
    TrainRequest,
    episode_limit,
    run_episodes,
)
from rewardsmith.workers.backends.replay_buffer import check_buffer_fits, job_buffer_size
from rewardsmith.workers.lean_torch import lean_torch


class SB3Backend(TrainingBackend):
    """stable-baselines3 PPO/SAC, single-threaded torch on the CPU (or the job's device)."""

    name = "sb3"

    def prepare(self, request: TrainRequest) -> None:
        """Build the vectorized train envs, the learning-curve env and the model; load the checkpoint."""
        from stable_baselines3.common.monitor import Monitor
        from stable_baselines3.common.utils import set_random_seed

        lean_torch()
        set_random_seed(request.seed)
        self.request = request
        self.train_env = in_process_envs([lambda: Monitor(request.reward_env()) for _ in range(request.n_envs)])
        self.train_env.seed(request.seed)
        width = min(request.spec.train.eval_episodes, EVAL_ENVS)
        self.eval_envs = [request.reward_env(scored=True) for _ in range(width)]
        hyperparams = request.hyperparams
        if request.spec.train.algo == "SAC":  # reserved whole when built, and counted against the address space
            size = job_buffer_size(hyperparams, request.timesteps, request.n_envs)
            space, action = self.train_env.observation_space, self.train_env.action_space
            check_buffer_fits(request.spec.name, size, space, action, request.job.sandbox.memory_mb)
            hyperparams = {**hyperparams, "buffer_size": size}
        self.model = build_model(
            request.spec, self.train_env, request.seed, device=request.job.device, hyperparams=hyperparams
        )
        if request.checkpoint is not None:
            from rewardsmith.workers.evaluate import load_weights

            load_weights(self.model.policy, request.checkpoint)
            self.model.num_timesteps = request.resume_timesteps

    def check(self) -> None:
        """One reset and step of every train env, then a reset."""
        env = self.train_env
        env.reset()
        env.step(np.array([env.action_space.sample() for _ in range(env.num_envs)]))
        env.reset()

    def learn(self) -> TrainOutcome:
        """`model.learn` with the heartbeat, component-log and learning-curve callbacks."""
        from stable_baselines3.common.logger import configure

        request, model = self.request, self.model
        model.set_logger(configure(str(request.out_dir / TB_DIR), ["tensorboard"]))
        eval_freq = request.eval_freq(episode_limit(self.eval_envs[0]))
        curve = FitnessEvalCallback(
            request.log,
            self.eval_envs,
            eval_freq,
            request.spec.train.eval_episodes,
            seed=request.seed + 10_000,
            offset=request.resume_timesteps,
        )
        callbacks = [
            HeartbeatCallback(request.log, offset=request.resume_timesteps),
            ComponentLogCallback(request.log, every=max(request.spacing // 2, 256)),
            curve,
        ]
        model.learn(
            total_timesteps=request.timesteps, callback=callbacks, reset_num_timesteps=not request.resume_timesteps
        )
        saving = time.perf_counter()
        model.save(request.out_dir / MODEL_FILE)
        weights = policy_bytes(model.policy)
        summary = {
            "learning_curve_s": round(curve.seconds, 3),
            "save_s": round(time.perf_counter() - saving, 3),
            "optimizer": optimizer_form(model.policy),
        }
        return TrainOutcome(int(model.num_timesteps), weights, device=str(model.device), summary=summary)


ADAM_FORM = "fused"
"""How the training worker runs SB3's Adam: "fused", every parameter's update in one kernel, or "foreach", one
call per operation for all parameters (the same arithmetic as SB3's own loop over them, bit for bit). Fused is the
same update up to float rounding; in its equal-learning test it learned as much on 4 tasks with 1.06x to 1.09x less
training CPU (docs/performance.md, "Eighth round")."""


def build_model(
    spec: TaskSpec, env, seed: int, *, device: str = "cpu", hyperparams: dict | None = None, adam: str = ADAM_FORM
):
    """The spec's SB3 algorithm on `env` with its hyperparameters (`hyperparams`: the spec's with the job's
    overrides; default the spec's) and `lean_policy_kwargs` (`adam`: the form of SB3's Adam). SAC is `LeanSAC`:
    SB3's, the same weights bit for bit with less work per gradient step."""
    from stable_baselines3 import PPO

    from rewardsmith.workers.backends.lean_sac import LeanSAC

    algo = {"PPO": PPO, "SAC": LeanSAC}[spec.train.algo]
    hyperparams = spec.train.hyperparams if hyperparams is None else hyperparams
    kwargs = lean_policy_kwargs(spec, adam)
    return algo("MlpPolicy", env, seed=seed, device=device, verbose=0, policy_kwargs=kwargs, **hyperparams)


_ACCEPTED: set[str] = set()
"""The learner settings (the spec's env and `[train]`, as JSON) this process has already built a model with."""


def check_settings(spec: TaskSpec, env) -> None:
    """TaskSpecError where SB3 refuses the spec's `[train]` settings (a misspelt or ill-typed hyperparameter or
    `policy_kwargs` entry): the model is built once on `env` (one of the task's envs, the caller's to close), with a
    one-transition replay buffer, and thrown away. Without this the first candidate's training would fail, after the
    LLM had been paid, with an error that names its reward file. Trusted code only (SB3 and the task's env); once
    per settings and process."""
    import json

    train = spec.train
    key = json.dumps([spec.env, spec.env_kwargs, train.model_dump(mode="json")], sort_keys=True, default=str)
    if key in _ACCEPTED:
        return
    hyperparams = {**train.hyperparams, "buffer_size": 1} if train.algo == "SAC" else train.hyperparams
    try:
        with warnings.catch_warnings():  # the stand-in is one env: SB3's rollout-size warning would speak of it
            warnings.filterwarnings("ignore", message="You have specified a mini-batch size", category=UserWarning)
            build_model(spec, in_process_envs([lambda: env]), 0, hyperparams=hyperparams)
    except (TypeError, ValueError, KeyError, AssertionError, AttributeError) as e:
        raise TaskSpecError(
            f"{spec.source or spec.name}: [train] {train.algo} refuses these settings"
            f" (hyperparams {train.hyperparams}, policy_kwargs {train.policy_kwargs}): {type(e).__name__}: {e}"
        ) from None
    _ACCEPTED.add(key)


def lean_policy_kwargs(spec: TaskSpec, adam: str = ADAM_FORM) -> dict | None:
    """The spec's `policy_kwargs` with SB3's default Adam (PPO's eps 1e-5 included) in the `adam` form
    (`ADAM_FORM`). A spec that names its own optimizer keeps it as it is."""
    if adam not in ("fused", "foreach"):
        raise ValueError(f"adam: expected 'fused' or 'foreach', got {adam!r}")
    kwargs = dict(spec.train.sb3_policy_kwargs() or {})
    if "optimizer_class" not in kwargs and "optimizer_kwargs" not in kwargs:
        kwargs["optimizer_kwargs"] = {**({"eps": 1e-5} if spec.train.algo == "PPO" else {}), adam: True}
    return kwargs or None


def optimizer_form(policy) -> str:
    """The policy's optimizer (SAC's: its actor's) as the training's summary records it: its class, and Adam's
    form ("Adam, fused")."""
    optimizer = policy.actor.optimizer if hasattr(policy, "actor") else policy.optimizer
    group = optimizer.param_groups[0]
    form = next((f for f in ("fused", "foreach") if group.get(f)), None)
    return f"{type(optimizer).__name__}, {form}" if form else type(optimizer).__name__


def in_process_envs(makers):
    """SB3's `DummyVecEnv` over `makers`, less its deep copy of every step's info dicts: each env returns fresh
    ones, and the rollout and the callbacks read them within the step (on Hopper with the reward file the copy
    cost about 6% of a training's time)."""
    from stable_baselines3.common.vec_env import DummyVecEnv

    class InProcessEnvs(DummyVecEnv):
        def step_wait(self):
            for i, env in enumerate(self.envs):
                obs, self.buf_rews[i], terminated, truncated, info = env.step(self.actions[i])
                self.buf_dones[i] = terminated or truncated
                info["TimeLimit.truncated"] = truncated and not terminated
                if self.buf_dones[i]:
                    info["terminal_observation"] = obs
                    obs, self.reset_infos[i] = env.reset()
                self.buf_infos[i] = info
                self._save_obs(i, obs)
            return self._obs_from_buf(), np.copy(self.buf_rews), np.copy(self.buf_dones), list(self.buf_infos)

    return InProcessEnvs(makers)


def policy_bytes(policy) -> bytes:
    """The policy's state dict as safetensors bytes (tensors only, on the CPU)."""
    from safetensors.torch import save

    return save({k: v.detach().cpu().clone().contiguous() for k, v in policy.state_dict().items()})


class HeartbeatCallback(BaseCallback):
    """Touch the heartbeat with this job's env steps every `every` vector steps, so the supervisor sees progress."""

    def __init__(self, log: TrainLog, every: int = 256, offset: int = 0) -> None:
        super().__init__()
        self.log, self.every, self.offset = log, every, offset

    def _on_step(self) -> bool:
        if self.n_calls % self.every == 0:
            self.log.heartbeat(self.num_timesteps - self.offset)
        return True


class ComponentLogCallback(BaseCallback):
    """Per-component episode sums during training, to metrics.jsonl (kind "train") and TensorBoard."""

    def __init__(self, log: TrainLog, every: int) -> None:
        super().__init__()
        self.log, self.every = log, every
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
        stats = self.log.train_point(self.num_timesteps, self.episodes)
        for name, value in stats["components"].items():
            self.logger.record(f"reward_components/{name}", value)
        self.episodes = []
        self.next_flush = self.num_timesteps + self.every


class FitnessEvalCallback(BaseCallback):
    """Every `eval_freq` steps of this job, run deterministic episodes on a separate env and log fitness (kind
    "eval"). A job continued from a checkpoint counts from the checkpoint's steps (`offset`), so it does not run
    a burst of points at its start to catch up."""

    def __init__(self, log: TrainLog, envs: list, eval_freq: int, episodes: int, seed: int, offset: int = 0) -> None:
        super().__init__()
        self.log, self.envs, self.eval_freq, self.n_episodes, self.seed = log, envs, eval_freq, episodes, seed
        self.next_eval = offset + eval_freq
        self.seconds = 0.0
        """Wall seconds spent in the learning-curve episodes."""

    def _on_step(self) -> bool:
        if self.num_timesteps >= self.next_eval:
            self.next_eval += self.eval_freq
            self.run_eval()
        return True

    def run_eval(self) -> None:
        started = time.perf_counter()

        def act(obs):
            return self.model.predict(obs, deterministic=True)[0]

        stats = self.log.eval_point(self.num_timesteps, run_episodes(act, self.envs, self.n_episodes, seed=self.seed))
        for key in ("fitness", "success_rate", "ep_len", "return"):
            self.logger.record(f"eval/{key}", stats[key])
        self.logger.dump(self.num_timesteps)
        self.seconds += time.perf_counter() - started


__all__ = ["SB3Backend", "build_model", "lean_policy_kwargs", "policy_bytes"]
