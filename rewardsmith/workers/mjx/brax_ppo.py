"""Brax's PPO (`brax.training.agents.ppo`) over a batch of MJX envs, training the network of SB3's `MlpPolicy`.

The env Brax steps is built here from four layers, innermost first:
- `Physics`: one Gymnasium v5 env on MJX (`workers.mjx.envs.MjxEnv`): actions clipped to the control range as SB3
  clips them, the v5 termination, and an episode ended where the observation is not finite;
- Brax's `VmapWrapper`, which batches it;
- `ExportedReward`: the candidate's exported reward (`reward_export.load_reward_artifact`), called on the whole
  batch at once, outside the vmap (`jax.export`'s call has no batching rule), with each component as a metric;
- Brax's `EpisodeWrapper` (the v5 time limit, with its truncation flag), then `FreshReset`: an ended episode
  starts again from a fresh draw of Gymnasium's reset noise (Brax's own auto-reset would restart every env from
  its first state forever, so a Reacher env would keep one target).

The networks are Brax's, set to SB3's `MlpPolicy` shape: the spec's hidden sizes and activation, a Gaussian with a
state-independent log std (`distribution_type="normal"`, `noise_std_type="log"`), orthogonal initialisation with
SB3's gains, and no observation normaliser (the CPU backend trains without one, so both backends learn the same
policy class). `sb3_state_dict` renames Brax's parameters to SB3's tensor names and layout, so the trusted
evaluation worker loads the policy unchanged; `brax_params` is its inverse, for a rung that resumes.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from brax.envs.base import Env, State, Wrapper
from brax.envs.wrappers.training import EpisodeWrapper, VmapWrapper
from brax.training.acme import running_statistics
from brax.training.agents.ppo import networks as ppo_networks
from brax.training.agents.ppo import train as ppo_train


def replicate(tree, devices):
    """`jax.device_put_replicated`, which JAX 0.10 removed and Brax 0.14.2's PPO still calls once: `tree` stacked
    once per device, sharded over them (the JAX pmap migration guide's drop-in)."""
    mesh = jax.sharding.Mesh(np.array(devices), ("i",))
    sharding = jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec("i"))
    return jax.tree_util.tree_map(lambda a: jax.device_put(jnp.stack([a] * len(devices)), sharding), tree)


if not hasattr(jax, "device_put_replicated"):
    jax.device_put_replicated = replicate


@dataclass(frozen=True)
class PPOSettings:
    """Brax PPO's settings, from the spec's SB3 names where it gives them (`[train] hyperparams`); the rollout
    stays short (`unroll`) because thousands of envs fill a batch."""

    unroll: int = 32
    epochs: int = 4
    batch: int | None = None
    """Transitions per minibatch (SB3's `batch_size`); None: 4 minibatches per update."""
    gamma: float = 0.99
    gae_lambda: float = 0.95
    clip: float = 0.2
    ent_coef: float = 0.0
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    learning_rate: float = 3e-4

    @classmethod
    def from_hyperparams(cls, hp: dict[str, Any]) -> PPOSettings:
        """The spec's SB3 names mapped (n_epochs, clip_range, ent_coef, ...); others are ignored."""
        names = {"n_epochs": "epochs", "batch_size": "batch", "clip_range": "clip"}
        same = ("gamma", "gae_lambda", "ent_coef", "vf_coef", "max_grad_norm", "learning_rate")
        names.update({name: name for name in same})
        values = {ours: hp[theirs] for theirs, ours in names.items() if isinstance(hp.get(theirs), int | float)}
        return cls(**values)


class Physics(Env):
    """One MJX env as a Brax `Env`: no reward (that comes batched, from `ExportedReward`)."""

    def __init__(self, env) -> None:
        self.env = env
        self.low, self.high = jnp.asarray(env.action_low), jnp.asarray(env.action_high)

    def reset(self, rng: jax.Array) -> State:
        d = self.env.reset(rng)
        zero = jnp.zeros(())
        return State(pipeline_state=d, obs=self.env.observe(d), reward=zero, done=zero, metrics={}, info={})

    def step(self, state: State, action: jax.Array) -> State:
        d = self.env.step(state.pipeline_state, jnp.clip(action, self.low, self.high))
        obs = self.env.observe(d)
        ended = self.env.terminated(d) | ~jnp.all(jnp.isfinite(obs))
        return state.replace(pipeline_state=d, obs=obs, done=ended.astype(jnp.float32))

    @property
    def observation_size(self) -> int:
        return self.env.obs_size

    @property
    def action_size(self) -> int:
        return self.env.action_size

    @property
    def backend(self) -> str:
        return "mjx"


class ExportedReward(Wrapper):
    """The exported reward over the batch; metric `c<i>` is component i (names stay out of Brax's own keys)."""

    def __init__(self, env: Env, reward_call: Callable, n_components: int, low, high) -> None:
        super().__init__(env)
        self.reward_call, self.n = reward_call, n_components
        self.low, self.high = low, high

    def reset(self, rng: jax.Array) -> State:
        state = self.env.reset(rng)
        return state.replace(metrics={f"c{i}": jnp.zeros(rng.shape[:-1]) for i in range(self.n)})

    def step(self, state: State, action: jax.Array) -> State:
        after = self.env.step(state, action)
        d, d2 = state.pipeline_state, after.pipeline_state
        applied = jnp.clip(action, self.low, self.high)
        reward, comps = self.reward_call(state.obs, d.qpos, d.qvel, applied, after.obs, d2.qpos, d2.qvel)
        reward = jnp.nan_to_num(reward, nan=0.0, posinf=0.0, neginf=0.0)
        return after.replace(reward=reward, metrics={f"c{i}": comps[:, i] for i in range(self.n)})


class FreshReset(Wrapper):
    """Auto-reset to a fresh draw of the reset noise (one key per env, kept in `info["rng"]`)."""

    def __init__(self, env: Env, physics_reset: Callable) -> None:
        super().__init__(env)
        self.physics_reset = physics_reset

    def reset(self, rng: jax.Array) -> State:
        keys = jax.vmap(jax.random.split)(rng)
        state = self.env.reset(keys[:, 0])
        state.info["rng"] = keys[:, 1]
        return state

    def step(self, state: State, action: jax.Array) -> State:
        state.info["steps"] = jnp.where(state.done, jnp.zeros_like(state.info["steps"]), state.info["steps"])
        state = self.env.step(state.replace(done=jnp.zeros_like(state.done)), action)
        keys = jax.vmap(jax.random.split)(state.info["rng"])
        fresh = self.physics_reset(keys[:, 1])
        done = state.done

        def pick(new, old):
            return jnp.where(done.reshape(done.shape + (1,) * (old.ndim - 1)), new, old)

        state.info["rng"] = keys[:, 0]
        pipeline = jax.tree_util.tree_map(pick, fresh.pipeline_state, state.pipeline_state)
        return state.replace(pipeline_state=pipeline, obs=pick(fresh.obs, state.obs))


def training_env(env, reward_call: Callable, n_components: int) -> Env:
    """The batched env Brax trains on (see the module docstring)."""
    physics = Physics(env)
    batched = VmapWrapper(physics)
    rewarded = ExportedReward(batched, reward_call, n_components, physics.low, physics.high)
    timed = EpisodeWrapper(rewarded, episode_length=env.spec.max_steps, action_repeat=1)
    return FreshReset(timed, jax.vmap(physics.reset))


def network_factory(hidden_pi: list[int], hidden_vf: list[int], activation: Callable, log_std_init: float):
    """Brax PPO networks shaped as SB3's `MlpPolicy` (see the module docstring)."""
    orthogonal = jax.nn.initializers.orthogonal
    return functools.partial(
        ppo_networks.make_ppo_networks,
        policy_hidden_layer_sizes=tuple(hidden_pi),
        value_hidden_layer_sizes=tuple(hidden_vf),
        activation=activation,
        distribution_type="normal",
        noise_std_type="log",
        init_noise_std=math.exp(log_std_init),
        policy_network_kernel_init_fn=orthogonal,
        policy_network_kernel_init_kwargs={"scale": math.sqrt(2)},
        value_network_kernel_init_fn=orthogonal,
        value_network_kernel_init_kwargs={"scale": math.sqrt(2)},
        mean_kernel_init_fn=orthogonal,
        mean_kernel_init_kwargs={"scale": 0.01},
    )


def hidden_sizes(state_dict: dict[str, Any], branch: str) -> list[int]:
    """The hidden layer sizes of one branch of an SB3 `MlpPolicy` state dict (`policy_net` or `value_net`)."""
    prefix = f"mlp_extractor.{branch}."
    weights = {
        int(k[len(prefix) : -len(".weight")]): v
        for k, v in state_dict.items()
        if k.startswith(prefix) and k.endswith(".weight")
    }
    return [int(weights[i].shape[0]) for i in sorted(weights)]


def sb3_state_dict(params) -> dict[str, np.ndarray]:
    """Brax's (normaliser, policy, value) parameters as SB3 `MlpPolicy` tensors (torch layout: out x in). The
    normaliser is the identity here (none is trained), so it is not exported."""
    _, policy, value = params
    pi, vf = policy["params"], value["params"]
    out: dict[str, np.ndarray] = {}

    def linear(name: str, layer) -> None:
        out[f"{name}.weight"] = np.asarray(layer["kernel"], np.float32).T
        out[f"{name}.bias"] = np.asarray(layer["bias"], np.float32)

    for i, key in enumerate(_ordered(pi["MLP_0"])):
        linear(f"mlp_extractor.policy_net.{2 * i}", pi["MLP_0"][key])
    linear("action_net", pi["Dense_0"])
    out["log_std"] = np.asarray(pi["std_logparam"]["log_value"], np.float32)
    *hidden, last = _ordered(vf)
    for i, key in enumerate(hidden):
        linear(f"mlp_extractor.value_net.{2 * i}", vf[key])
    linear("value_net", vf[last])
    return out


def brax_params(state_dict: dict[str, Any], obs_size: int):
    """SB3 `MlpPolicy` tensors as Brax's (identity normaliser, policy, value) parameters (`sb3_state_dict`'s
    inverse), for `ppo.train(restore_params=...)`."""

    def layer(name: str) -> dict:
        return {
            "kernel": jnp.asarray(np.asarray(state_dict[f"{name}.weight"], np.float32).T),
            "bias": jnp.asarray(np.asarray(state_dict[f"{name}.bias"], np.float32)),
        }

    pi_layers = len(hidden_sizes(state_dict, "policy_net"))
    vf_layers = len(hidden_sizes(state_dict, "value_net"))
    policy = {
        "params": {
            "MLP_0": {f"hidden_{i}": layer(f"mlp_extractor.policy_net.{2 * i}") for i in range(pi_layers)},
            "Dense_0": layer("action_net"),
            "std_logparam": {"log_value": jnp.asarray(np.asarray(state_dict["log_std"], np.float32))},
        }
    }
    value = {"params": {f"hidden_{i}": layer(f"mlp_extractor.value_net.{2 * i}") for i in range(vf_layers)}}
    value["params"][f"hidden_{vf_layers}"] = layer("value_net")
    normaliser = running_statistics.init_state(jax.ShapeDtypeStruct((obs_size,), jnp.float32))
    return normaliser, policy, value


def _ordered(layers: dict) -> list[str]:
    return sorted(layers, key=lambda k: int(k.split("_")[-1]))


def minibatch_segments(settings: PPOSettings, n_envs: int) -> int:
    """Unrolls per minibatch: Brax fills each with whole unrolls, and one update (an unroll of every env) must
    split into equal minibatches. With the spec's `batch_size` that is as close to SB3's minibatch, and so to
    SB3's gradient steps per env step, as the unroll allows; without it, 4 minibatches."""
    wanted = settings.batch // settings.unroll if settings.batch else n_envs // 4
    segments = max(1, min(wanted, n_envs))
    while n_envs % segments:
        segments -= 1
    return segments


def report_count(timesteps: int, per_update: int, most: int = 20) -> int:
    """How many reports (Brax's evaluation epochs) to split a training into. Brax trains each epoch for the same
    whole number of updates, enough to reach `timesteps`; so many reports of 1 update each, up to `most`, then as
    few as keep the overshoot under one report's updates (a fixed 20 turned 49 updates into 60)."""
    updates = max(2, math.ceil(timesteps / per_update))
    per_report = math.ceil(updates / most)
    return math.ceil(updates / per_report)


def train(
    env,
    reward_call: Callable,
    n_components: int,
    settings: PPOSettings,
    *,
    timesteps: int,
    n_envs: int,
    seed: int,
    factory,
    restore=None,
    progress: Callable[[int, dict[str, Any]], None],
):
    """Brax's `ppo.train` on `training_env`; returns (the final parameters, the env steps trained).
    `progress(steps, metrics)` hears every epoch's end and the episode statistics (`sum_reward`, `length`,
    `c<i>`, means over the episodes that ended since the last report)."""
    segments = minibatch_segments(settings, n_envs)
    per_update = n_envs * settings.unroll
    reports = report_count(timesteps, per_update)
    trained = {"steps": 0}

    def heard(steps: int, metrics: dict[str, Any]) -> None:
        trained["steps"] = max(trained["steps"], int(steps))
        progress(int(steps), metrics)

    _, params, _ = ppo_train.train(
        environment=training_env(env, reward_call, n_components),
        num_timesteps=timesteps,
        wrap_env_fn=lambda e, **_: e,
        episode_length=env.spec.max_steps,
        num_envs=n_envs,
        unroll_length=settings.unroll,
        batch_size=segments,
        num_minibatches=n_envs // segments,
        num_updates_per_batch=settings.epochs,
        learning_rate=settings.learning_rate,
        entropy_cost=settings.ent_coef,
        discounting=settings.gamma,
        gae_lambda=settings.gae_lambda,
        clipping_epsilon=settings.clip,
        max_grad_norm=settings.max_grad_norm,
        vf_loss_coefficient=2 * settings.vf_coef,  # Brax's value loss is 0.5 x coef x MSE, SB3's coef x MSE
        normalize_advantage=True,
        normalize_observations=False,
        network_factory=factory,
        seed=seed,
        num_evals=reports + 1,
        run_evals=False,
        log_training_metrics=True,
        training_metrics_steps=max(per_update, timesteps // 20),
        restore_params=restore,
        restore_value_fn=restore is not None,
        progress_fn=heard,
    )
    return params, trained["steps"]
