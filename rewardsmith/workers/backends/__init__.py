"""Training backends: one learner behind the seam in `base` ("train this reward on this task for N steps").

`BACKENDS` maps a backend's name (`[train] backend` in a TaskSpec, or the job option `backend`) to the class
that implements `base.TrainingBackend`, as "module:Class", imported only when a job asks for it (so a backend's
heavy imports, such as JAX, cost nothing to a job that uses another). See CONTRIBUTING "How to add a training
backend".

Modules: `base` (the seam: `TrainRequest`, `TrainingBackend`, `TrainOutcome`, the shared logs), `sb3` (the default:
stable-baselines3 PPO/SAC in torch on `n_envs` in-process envs), `lean_sac` (its SAC: SB3's, the same weights bit
for bit with less work per gradient step), `replay_buffer` (SAC's buffer capped at a job's steps, and a task error
where it cannot fit a worker's memory) and `mjx` (PPO in JAX over MJX envs, the `mjx` extra; the reward is traced
to JAX and exported inside the sandbox).
"""

from __future__ import annotations

import importlib

from rewardsmith.errors import TaskSpecError
from rewardsmith.workers.backends.base import TrainingBackend, TrainOutcome, TrainRequest

BACKENDS: dict[str, str] = {
    "sb3": "rewardsmith.workers.backends.sb3:SB3Backend",
    "mjx": "rewardsmith.workers.backends.mjx:MjxBackend",
}
DEFAULT_BACKEND = "sb3"
CPU_BACKEND = "sb3"
"""Where a job trains when the GPU backend cannot: `auto` without a GPU, and a candidate whose reward does not
trace to JAX (`rewardsmith.search.training.backend_fallback`)."""
GPU_MIN_STEPS = 2048 * 32 * 32
"""The shortest job `auto` trains on the GPU for any task: 2,097,152 steps, from which `backends.mjx.envs_for`
gives a GPU all its 2,048 envs (32 PPO updates of 32 steps each), the one batch measured to win on speed.
Measured (docs/mjx.md, "The second lease"): on an H200, 200,000 hopper-hop steps took 225 s on MJX (84 s to the
first update, then about 1,500 steps/s on the 128 envs that budget gets), where `rewardsmith train` on one idle
CPU core of this project's machine took 42.8 s (4,672 steps/s, `bench/throughput.py`); at 2,048 envs MJX trained
12,700 steps/s, so a 2.2-million-step job takes about 270 s there against about 470 s on that core. A task's
own threshold is higher where its CPU settings make more PPO updates (`gpu_min_steps`)."""
GPU_BATCH = 2048 * 32
"""Env steps per PPO update on the GPU's whole batch: 2,048 envs, each a 32-step unroll (`brax_ppo.PPOSettings`)."""


def gpu_min_steps(spec) -> int:
    """The shortest job `auto` trains on the GPU for `spec`: long enough for the GPU's whole batch to win on speed
    (`GPU_MIN_STEPS`) AND to give as many PPO updates as the spec's own CPU settings make at its search budget.
    Large-batch PPO learns less per env step: on an H100, 2.2 million hopper-hop steps on 2,048 envs (34 updates)
    taught the example reward to stand (0.027 m/s, 3 seeds), where SB3 with the spec's settings made 390 updates
    in 200,000 steps and reached 0.106 ± 0.034 (docs/mjx.md, "The third lease"). Faster is worth nothing if it
    learns less, so `auto` stays on the CPU until the GPU's updates match (hopper-hop: 25.6 million steps)."""
    rollout = spec.train.ppo_rollout()
    updates = spec.train.timesteps // rollout if rollout else 0
    return max(GPU_MIN_STEPS, GPU_BATCH * updates)


__all__ = [
    "BACKENDS",
    "CPU_BACKEND",
    "DEFAULT_BACKEND",
    "GPU_BATCH",
    "GPU_MIN_STEPS",
    "TrainOutcome",
    "TrainRequest",
    "TrainingBackend",
    "check_training_settings",
    "gpu_min_steps",
    "gpu_visible",
    "load_backend",
    "resolve_backend",
]


def gpu_visible() -> bool:
    """True when the `mjx` extra is installed and an NVIDIA GPU is visible (cheap: no JAX import)."""
    import importlib.util
    import os
    from pathlib import Path

    if importlib.util.find_spec("jax") is None or importlib.util.find_spec("mujoco.mjx") is None:
        return False
    return Path("/dev/nvidia0").exists() and os.environ.get("CUDA_VISIBLE_DEVICES", "0") not in ("", "-1")


def resolve_backend(requested: str | None, spec, reward_source: str = "candidate", timesteps: int | None = None) -> str:
    """The backend a job trains with: the requested one, else the spec's; `auto` is `mjx` when a GPU is visible,
    the spec's env, algorithm and reward source run on MJX and the job trains at least `gpu_min_steps(spec)` (a
    job of unknown length, `timesteps` None, counts as long enough), else the spec's backend."""
    from rewardsmith.workers.mjx.envs import supported

    fallback = spec.train.backend or DEFAULT_BACKEND
    if requested in (None, ""):
        return fallback
    if requested != "auto":
        return str(requested)
    fits = supported(spec.env, spec.env_kwargs) and spec.train.algo == "PPO" and reward_source == "candidate"
    fits = fits and (timesteps is None or timesteps >= gpu_min_steps(spec))
    return "mjx" if fits and gpu_visible() else (fallback if fallback != "mjx" else CPU_BACKEND)


def check_training_settings(spec, steps: int | None = None) -> None:
    """What `run`, `check-task`, `train`, `calibrate` and `baseline` ask of a spec's `[train]` before anything is
    spent (TaskSpecError otherwise): a SAC replay buffer that fits a worker for `steps`
    (`replay_buffer.check_task_buffer_fits`) and, on the SB3 backend, settings SB3 accepts (`sb3.check_settings`:
    the model is built once). Both read one env of the task."""
    from rewardsmith.reward.wrappers import ApplyReward
    from rewardsmith.task import make_env
    from rewardsmith.workers.backends.replay_buffer import check_task_buffer_fits

    sb3 = (spec.train.backend or DEFAULT_BACKEND) == "sb3"
    if spec.train.algo != "SAC" and not sb3:
        return
    env = ApplyReward(make_env(spec), source="native")
    try:
        check_task_buffer_fits(spec, env, steps)
        if sb3:
            from rewardsmith.workers.backends.sb3 import check_settings

            check_settings(spec, env)
    finally:
        env.close()


def load_backend(name: str) -> TrainingBackend:
    """A fresh instance of the backend named `name`; a TaskSpecError names the known ones otherwise."""
    entry = BACKENDS.get(name)
    if entry is None:
        raise TaskSpecError(f"unknown training backend {name!r}; known: {', '.join(sorted(BACKENDS))}")
    module_name, class_name = entry.split(":")
    backend = getattr(importlib.import_module(module_name), class_name)()
    if not isinstance(backend, TrainingBackend):
        raise TaskSpecError(f"training backend {name!r} ({entry}) does not implement TrainingBackend")
    return backend
