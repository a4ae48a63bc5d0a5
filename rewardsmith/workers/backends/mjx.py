"""The MJX backend (the `mjx` extra): PPO in JAX over many MJX envs of Gymnasium's MuJoCo locomotion tasks.

`prepare` builds the MJX env (`workers.mjx.envs`, Gymnasium's own XML and rules) and SB3's `MlpPolicy` for the
spec, to take its tensor names, shapes and activation; `check` (after lock-down, the reward loaded through the
gate) traces the candidate's reward to JAX and exports it (`workers.mjx.reward_export`), then keeps only the
deserialized export: `learn` never calls the candidate's Python. A reward that does not trace fails with
`Untraceable`, whose message says what to change; the worker records its kind ("untraceable") and the parent
trains the candidate on the CPU backend instead (`rewardsmith.search.training.backend_fallback`).

Supported: PPO specs of the envs in `workers.mjx.envs.ENVS` (env kwargs: only `terminate_when_unhealthy`; the spec's
`max_episode_steps` is the episode length), candidate rewards (not the
native or sparse baselines, not the progress strategy). Job option `n_envs` sets the batch; by default it is
2048 on a GPU and 64 on a CPU, fewer where the budget would give fewer than `MIN_UPDATES` PPO updates
(`envs_for`). Job option `gpu_workers` (the executor's worker count, set by `train_and_evaluate`) splits the GPU's
memory: each worker's JAX takes 0.9 / workers of it (at most JAX's default 0.75), unless the user set
XLA_PYTHON_CLIENT_MEM_FRACTION. A failure of XLA itself (`machine_failures`) trains the candidate on the CPU
backend instead.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Callable

from rewardsmith.errors import BackendFailed, TaskSpecError, require_extra
from rewardsmith.files import append_jsonl
from rewardsmith.run_folder.names import METRICS_FILE
from rewardsmith.workers.backends.base import TrainingBackend, TrainOutcome, TrainRequest

DEFAULT_ENVS = {"gpu": 2048, "cpu": 64}
MIN_UPDATES = 32
"""PPO updates a training gets at least, unless that takes fewer than `FEWEST_ENVS` envs. On the pendulum at
200,000 steps, 4 updates (2,048 envs) failed, and 7 or more balanced it in at least 19 of 20 evaluation episodes
(docs/mjx.md): 32 keeps a margin."""
FEWEST_ENVS = 4
REWRITE_CHECK_TRANSITIONS = 200
"""Real transitions (random and zero actions, as the critic's) on which a branch-rewritten reward must agree."""


def envs_for(device: str, timesteps: int, unroll: int) -> int:
    """The batch of MJX envs: the device's default, halved while a training of `timesteps` would get fewer than
    `MIN_UPDATES` PPO updates (each one unroll of every env): 200,000 steps on a GPU's 2,048 envs are 4."""
    n = DEFAULT_ENVS.get(device, DEFAULT_ENVS["gpu"])
    while n > FEWEST_ENVS and timesteps < MIN_UPDATES * n * unroll:
        n //= 2
    return n


def gpu_memory_fraction(workers: int) -> str:
    """The share of a GPU's memory one of `workers` workers' JAX takes (JAX alone takes 0.75: a second worker
    would then fail to start on the same GPU)."""
    return f"{min(0.75, 0.9 / max(1, workers)):.3f}"


def check_supported(request: TrainRequest) -> None:
    """TaskSpecError (or UnsupportedEnv) when this job cannot train on MJX, naming why."""
    from rewardsmith.workers.mjx.envs import env_def

    spec = request.spec
    env_def(spec.env, spec.env_kwargs)
    if spec.train.algo != "PPO":
        raise TaskSpecError(f"the MJX backend trains PPO only; {spec.name} uses {spec.train.algo} (use --backend sb3)")
    if request.job.reward_source != "candidate" or request.counts is not None:
        raise TaskSpecError("the MJX backend trains candidate rewards only (no baselines, no progress strategy)")


class MjxBackend(TrainingBackend):
    """PPO in JAX on MJX envs; see the module docstring."""

    name = "mjx"

    def prepare(self, request: TrainRequest) -> None:
        check_supported(request)  # before JAX: an unsupported task fails fast and clearly
        with pulse(request.log, 0), machine_failures():  # importing JAX and building the env: a while on a CPU
            self._prepare(request)

    def _prepare(self, request: TrainRequest) -> None:
        require_extra("jax")
        require_extra("brax")
        workers = int(request.job.options.get("gpu_workers") or 1)
        os.environ.setdefault("XLA_PYTHON_CLIENT_MEM_FRACTION", gpu_memory_fraction(workers))
        import jax

        from rewardsmith.task import make_env
        from rewardsmith.workers.critic import collect_transitions
        from rewardsmith.workers.evaluate import build_policy, load_weights
        from rewardsmith.workers.mjx import brax_ppo
        from rewardsmith.workers.mjx.envs import MjxEnv

        self.request = request
        self.device = jax.default_backend()  # makes the CUDA context on a GPU, before lock-down
        self.holds_gpu = self.device == "gpu"
        self.env = MjxEnv.for_spec(request.spec)
        gym_env = make_env(request.spec)
        policy = build_policy(request.spec, gym_env.observation_space, gym_env.action_space)
        gym_env.close()
        # real states on which a branch-rewritten reward must agree with the source (`workers.mjx.rewrite`)
        self.transitions, _ = collect_transitions(request.spec, REWRITE_CHECK_TRANSITIONS, 100, request.seed)
        self.settings = brax_ppo.PPOSettings.from_hyperparams(request.hyperparams)
        chosen = request.job.options.get("n_envs")
        self.n_envs = int(chosen) if chosen else envs_for(self.device, request.timesteps, self.settings.unroll)
        state_dict = {k: v.detach().cpu().numpy() for k, v in policy.state_dict().items()}
        self.factory = brax_ppo.network_factory(
            brax_ppo.hidden_sizes(state_dict, "policy_net"),
            brax_ppo.hidden_sizes(state_dict, "value_net"),
            activation_of(policy),
            float(request.spec.train.policy_kwargs.get("log_std_init", 0.0)),
        )
        self.restore = None
        if request.checkpoint is not None:  # loaded strictly, as the evaluation worker loads it
            load_weights(policy, request.checkpoint)
            weights = {k: v.detach().cpu().numpy() for k, v in policy.state_dict().items()}
            self.restore = brax_ppo.brax_params(weights, self.env.obs_size)

    def check(self) -> None:
        from rewardsmith.workers.main import load_job_reward
        from rewardsmith.workers.mjx.reward_export import export_reward, load_reward_artifact

        req = self.request
        with pulse(req.log, 0), machine_failures():  # tracing and exporting take a while on a CPU
            artifact = export_reward(  # the candidate's Python runs here, traced
                req.reward.fn,
                self.env,
                source=req.reward.source,
                load=lambda source: load_job_reward(req.job, source),
                transitions=self.transitions,
            )
        self.rewritten = artifact.rewritten
        self.components = artifact.components
        self.artifact_bytes = len(artifact.blob)
        self.reward_call = load_reward_artifact(artifact.blob)  # from here on, only the export
        self.request.reward.fn = None  # the trainer keeps no reference to the candidate's Python

    def learn(self) -> TrainOutcome:
        from rewardsmith.workers.mjx import brax_ppo

        req, started = self.request, time.perf_counter()
        latest = {"steps": 0}

        def progress(steps: int, metrics: dict) -> None:
            latest["steps"] = max(latest["steps"], min(steps, req.timesteps))
            req.log.heartbeat(latest["steps"])
            if "episode/sum_reward" in metrics:  # Brax's means over the episodes ended since its last report
                record = {"kind": "train", "reported_by": "training worker", "timesteps": steps}
                components = {name: metrics.get(f"episode/c{i}") for i, name in enumerate(self.components)}
                record.update(
                    wall_s=round(time.perf_counter() - started, 3),
                    ep_len=float(metrics["episode/length"]),
                    components={name: float(v) for name, v in components.items() if v is not None},
                    fitness=None,
                    success_rate=None,
                    **{"return": float(metrics["episode/sum_reward"])},
                )
                append_jsonl(req.out_dir / METRICS_FILE, record)

        with pulse(req.log, lambda: latest["steps"]), machine_failures():  # Brax compiles each epoch first
            params, done = brax_ppo.train(
                self.env,
                self.reward_call,
                len(self.components),
                self.settings,
                timesteps=req.timesteps,
                n_envs=self.n_envs,
                seed=req.seed,
                factory=self.factory,
                restore=self.restore,
                progress=progress,
            )
        summary = {
            "n_envs": self.n_envs,
            "learner": "brax PPO",
            "reward_rewritten": self.rewritten,
            "reward_artifact_bytes": self.artifact_bytes,
            "steps_per_s": _rate(done, started),
        }
        return TrainOutcome(
            req.resume_timesteps + done, weights_bytes(brax_ppo.sb3_state_dict(params)), self.device, summary
        )


@contextlib.contextmanager
def pulse(log, done: int | Callable[[], int], every_s: float = 20.0):
    """Within: a heartbeat every `every_s` from a daemon thread (compiling sends none by itself), with `done`
    steps (or what `done()` says at each beat, so a beat never moves the progress back)."""
    stop = threading.Event()

    def beat() -> None:
        while not stop.wait(every_s):
            log.heartbeat(done() if callable(done) else done)

    thread = threading.Thread(target=beat, daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


XLA_ERRORS = ("JaxRuntimeError", "XlaRuntimeError")
"""JAX's errors from XLA's compiler and runtime: the machine failed (no GPU compiler, GPU memory), not the reward."""


@contextlib.contextmanager
def machine_failures():
    """Within: XLA's own errors become `BackendFailed`, so the run trains the candidate on the CPU backend (a reward
    cannot reach XLA's errors but through JAX itself: at most it earns a CPU training, the default path)."""
    try:
        yield
    except Exception as e:
        if type(e).__name__ not in XLA_ERRORS:
            raise
        raise BackendFailed(f"the MJX backend failed on this machine: {type(e).__name__}: {str(e)[:400]}") from e


def _rate(done: int, started: float) -> float:
    return round(done / max(time.perf_counter() - started, 1e-9), 1)


def activation_of(policy):
    """The JAX activation of an SB3 policy's MLP (its first non-Linear module)."""
    import jax
    from torch import nn

    table = {nn.Tanh: jax.numpy.tanh, nn.ReLU: jax.nn.relu, nn.ELU: jax.nn.elu, nn.GELU: jax.nn.gelu}
    table.update({nn.SiLU: jax.nn.silu, nn.LeakyReLU: jax.nn.leaky_relu, nn.SELU: jax.nn.selu})
    for module in policy.mlp_extractor.policy_net:
        if not isinstance(module, nn.Linear):
            if type(module) not in table:
                raise TaskSpecError(f"the MJX backend has no activation {type(module).__name__}")
            return table[type(module)]
    return jax.numpy.tanh


def weights_bytes(state_dict: dict) -> bytes:
    """SB3-named tensors as safetensors bytes (float32, C-contiguous writable copies: Brax kernels arrive transposed)."""
    import numpy as np
    import torch
    from safetensors.torch import save

    return save({k: torch.from_numpy(np.array(v, dtype=np.float32, order="C")) for k, v in state_dict.items()})
