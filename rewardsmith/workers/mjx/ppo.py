"""A compact PPO in JAX (CleanRL-style) over a batch of MJX envs, with the network of SB3's `MlpPolicy`.

Parameters are a flat dict keyed by SB3's own state-dict names (`mlp_extractor.policy_net.0.weight`, ...,
`action_net.*`, `value_net.*`, `log_std`) in torch's layout (a Linear weight is out × in), so the trained policy
exports to `policy.safetensors` as is and the evaluation worker loads it strictly. One `iteration` (jitted) is a
rollout of `unroll` steps of every env, GAE, and `epochs` passes of minibatch updates with Adam.

Episodes end on the env's termination or its time limit; a time-limit end is treated as terminal (no value
bootstrap), a small bias that SB3 avoids; the envs reset themselves in place with fresh noise.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

LOG_2PI = 1.8378770664093453


@dataclass(frozen=True)
class PPOConfig:
    """PPO settings, read from the spec's `[train] hyperparams` where it names them."""

    unroll: int = 32
    epochs: int = 4
    minibatches: int = 4
    gamma: float = 0.99
    gae_lambda: float = 0.95
    clip: float = 0.2
    ent_coef: float = 0.0
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    learning_rate: float = 3e-4

    @classmethod
    def from_hyperparams(cls, hp: dict[str, Any]) -> PPOConfig:
        """The spec's SB3 names mapped (n_epochs, clip_range, ...); the rollout length stays short for many envs."""
        names = {"n_epochs": "epochs", "clip_range": "clip", "gae_lambda": "gae_lambda", "gamma": "gamma"}
        names.update(
            ent_coef="ent_coef", vf_coef="vf_coef", max_grad_norm="max_grad_norm", learning_rate="learning_rate"
        )
        values = {ours: hp[theirs] for theirs, ours in names.items() if isinstance(hp.get(theirs), int | float)}
        return cls(**values)


def layers(params: dict, prefix: str) -> list[str]:
    """The Linear layers of one SB3 MLP branch, in order (`prefix.0`, `prefix.2`, ...)."""
    found = sorted({int(k[len(prefix) + 1 :].split(".")[0]) for k in params if k.startswith(prefix + ".")})
    return [f"{prefix}.{i}" for i in found]


def mlp(params: dict, prefix: str, x, activation: Callable):
    """SB3's MlpExtractor branch: Linear, activation, Linear, activation, ..."""
    for name in layers(params, prefix):
        x = activation(x @ params[name + ".weight"].T + params[name + ".bias"])
    return x


def forward(params: dict, obs, activation: Callable):
    """(action mean, log std, value) of SB3's ActorCriticPolicy for a batch of observations."""
    pi = mlp(params, "mlp_extractor.policy_net", obs, activation)
    vf = mlp(params, "mlp_extractor.value_net", obs, activation)
    mean = pi @ params["action_net.weight"].T + params["action_net.bias"]
    value = (vf @ params["value_net.weight"].T + params["value_net.bias"])[..., 0]
    return mean, params["log_std"], value


def init_params(shapes: dict[str, tuple[int, ...]], key, log_std_init: float = 0.0) -> dict:
    """Orthogonal init as SB3's (gain √2 hidden, 0.01 policy head, 1 value head), zero biases."""
    import jax
    import jax.numpy as jnp

    params = {}
    for name, shape in sorted(shapes.items()):
        key, sub = jax.random.split(key)
        if name == "log_std":
            params[name] = jnp.full(shape, log_std_init, jnp.float32)
        elif name.endswith(".bias"):
            params[name] = jnp.zeros(shape, jnp.float32)
        else:
            gain = 0.01 if name.startswith("action_net") else 1.0 if name.startswith("value_net") else 2**0.5
            params[name] = jax.nn.initializers.orthogonal(gain)(sub, shape, jnp.float32)
    return params


def log_prob(mean, log_std, action):
    """Diagonal Gaussian log-density, summed over action dimensions."""
    import jax.numpy as jnp

    z = (action - mean) / jnp.exp(log_std)
    return jnp.sum(-0.5 * z * z - log_std - 0.5 * LOG_2PI, axis=-1)


def adam(params: dict, grads: dict, opt: dict, lr: float, max_norm: float):
    """One Adam step (β 0.9/0.999, ε 1e-5 as SB3) after clipping the global gradient norm."""
    import jax
    import jax.numpy as jnp

    norm = jnp.sqrt(sum(jnp.sum(g * g) for g in jax.tree_util.tree_leaves(grads)))
    scale = jnp.minimum(1.0, max_norm / (norm + 1e-6))
    t = opt["t"] + 1
    new_params, m, v = {}, {}, {}
    for k in params:
        g = grads[k] * scale
        m[k] = 0.9 * opt["m"][k] + 0.1 * g
        v[k] = 0.999 * opt["v"][k] + 0.001 * g * g
        m_hat, v_hat = m[k] / (1 - 0.9**t), v[k] / (1 - 0.999**t)
        new_params[k] = params[k] - lr * m_hat / (jnp.sqrt(v_hat) + 1e-5)
    return new_params, {"m": m, "v": v, "t": t}


def adam_state(params: dict) -> dict:
    """Adam's zero moments for `params`."""
    import jax.numpy as jnp

    zeros = {k: jnp.zeros_like(p) for k, p in params.items()}
    return {"m": zeros, "v": dict(zeros), "t": jnp.zeros((), jnp.int32)}


def gae(rewards, values, dones, last_value, gamma: float, lam: float):
    """Generalised advantage estimates and returns over a (T, N) rollout."""
    import jax
    import jax.numpy as jnp

    def back(carry, x):
        adv_next, value_next = carry
        r, v, done = x
        nonterminal = 1.0 - done
        delta = r + gamma * value_next * nonterminal - v
        adv = delta + gamma * lam * nonterminal * adv_next
        return (adv, v), adv

    _, adv = jax.lax.scan(back, (jnp.zeros_like(last_value), last_value), (rewards, values, dones), reverse=True)
    return adv, adv + values


def ppo_loss(params, batch, cfg: PPOConfig, activation):
    """The clipped PPO objective with value loss and entropy bonus (SB3's form, advantages normalised)."""
    import jax.numpy as jnp

    obs, action, old_logp, adv, ret = batch
    mean, log_std, value = forward(params, obs, activation)
    logp = log_prob(mean, log_std, action)
    adv = (adv - adv.mean()) / (adv.std() + 1e-8)
    ratio = jnp.exp(logp - old_logp)
    policy_loss = -jnp.mean(jnp.minimum(ratio * adv, jnp.clip(ratio, 1 - cfg.clip, 1 + cfg.clip) * adv))
    entropy = jnp.sum(log_std + 0.5 * (LOG_2PI + 1.0))
    return policy_loss + cfg.vf_coef * jnp.mean((ret - value) ** 2) - cfg.ent_coef * entropy


def update(params, opt, data, key, cfg: PPOConfig, activation):
    """`epochs` passes of minibatch Adam steps over a flattened rollout."""
    import jax

    size = data[0].shape[0]
    mb = size // cfg.minibatches
    grad_fn = jax.grad(ppo_loss)

    def epoch(carry, k):
        params, opt = carry
        perm = jax.random.permutation(k, size)[: mb * cfg.minibatches].reshape(cfg.minibatches, mb)

        def step(carry, idx):
            params, opt = carry
            grads = grad_fn(params, tuple(x[idx] for x in data), cfg, activation)
            return adam(params, grads, opt, cfg.learning_rate, cfg.max_grad_norm), None

        return jax.lax.scan(step, (params, opt), perm)[0], None

    (params, opt), _ = jax.lax.scan(epoch, (params, opt), jax.random.split(key, cfg.epochs))
    return params, opt
