"""One PPO iteration over a batch of MJX envs with the exported reward: rollout, GAE, update, all jitted.

The reward is the candidate's exported computation (`reward_export.load_reward_artifact`), called on the
batch's states before and after each step; the candidate's Python never runs here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rewardsmith.workers.mjx.ppo import PPOConfig, forward, gae, log_prob, update


def make_iteration(env, reward_call: Callable, cfg: PPOConfig, activation: Callable, n_components: int):
    """A jitted `iteration(runner) -> (runner, stats)`; `runner` is what `initial_runner` returns."""
    import jax
    import jax.numpy as jnp

    step_all, observe_all = jax.vmap(env.step), jax.vmap(env.observe)
    ended_all, reset_all = jax.vmap(env.terminated), jax.vmap(env.reset)
    low, high = jnp.asarray(env.action_low), jnp.asarray(env.action_high)

    def env_step(carry, _):
        params, d, obs, t, ep_ret, ep_comp, key, acc = carry
        key, k_act, k_reset = jax.random.split(key, 3)
        mean, log_std, value = forward(params, obs, activation)
        action = mean + jnp.exp(log_std) * jax.random.normal(k_act, mean.shape)
        applied = jnp.clip(action, low, high)
        d2 = step_all(d, applied)
        obs2 = observe_all(d2)
        reward, comps = reward_call(obs, d.qpos, d.qvel, applied, obs2, d2.qpos, d2.qvel)
        reward = jnp.nan_to_num(reward, nan=0.0, posinf=0.0, neginf=0.0)
        t2 = t + 1
        done = ended_all(d2) | (t2 >= env.spec.max_steps) | ~jnp.all(jnp.isfinite(obs2), axis=-1)
        ep_ret, ep_comp = ep_ret + reward, ep_comp + comps
        acc = {
            "episodes": acc["episodes"] + done.sum(),
            "return": acc["return"] + jnp.where(done, ep_ret, 0.0).sum(),
            "length": acc["length"] + jnp.where(done, t2, 0).sum(),
            "components": acc["components"] + jnp.where(done[:, None], ep_comp, 0.0).sum(0),
        }
        fresh = reset_all(jax.random.split(k_reset, obs.shape[0]))

        def pick(new, old):
            return jnp.where(done.reshape((-1,) + (1,) * (old.ndim - 1)), new, old)

        d_next = jax.tree_util.tree_map(pick, fresh, d2)
        obs_next = pick(observe_all(fresh), obs2)
        keep = 1.0 - done
        transition = (obs, action, log_prob(mean, log_std, action), value, reward, done.astype(jnp.float32))
        carry = (params, d_next, obs_next, jnp.where(done, 0, t2), ep_ret * keep, ep_comp * keep[:, None], key, acc)
        return carry, transition

    @jax.jit
    def iteration(runner):
        params, opt, d, obs, t, ep_ret, ep_comp, key = runner
        acc = {
            "episodes": jnp.zeros((), jnp.int32),
            "return": jnp.zeros(()),
            "length": jnp.zeros((), jnp.int32),
            "components": jnp.zeros((n_components,)),
        }
        key, k_update = jax.random.split(key)
        carry = (params, d, obs, t, ep_ret, ep_comp, key, acc)
        carry, (o, a, lp, v, r, done) = jax.lax.scan(env_step, carry, None, length=cfg.unroll)
        _, d, obs, t, ep_ret, ep_comp, key, acc = carry
        last_value = forward(params, obs, activation)[2]
        adv, ret = gae(r, v, done, last_value, cfg.gamma, cfg.gae_lambda)
        flat = tuple(x.reshape((-1,) + x.shape[2:]) for x in (o, a, lp, adv, ret))
        params, opt = update(params, opt, flat, k_update, cfg, activation)
        return (params, opt, d, obs, t, ep_ret, ep_comp, key), acc

    return iteration


def initial_runner(env, params: dict, opt: dict, n_envs: int, n_components: int, seed: int) -> tuple[Any, ...]:
    """Fresh envs (reset noise from `seed`) and zero episode counters."""
    import jax
    import jax.numpy as jnp

    key, k_reset = jax.random.split(jax.random.PRNGKey(seed))
    d = jax.jit(jax.vmap(env.reset))(jax.random.split(k_reset, n_envs))
    obs = jax.vmap(env.observe)(d)
    zeros = jnp.zeros((n_envs,))
    return params, opt, d, obs, jnp.zeros((n_envs,), jnp.int32), zeros, jnp.zeros((n_envs, n_components)), key
