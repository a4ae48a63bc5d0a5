"""Parity of the MJX envs with Gymnasium's own v5 envs, on CPU JAX: the same reset, the same actions, the same
states, observations and terminations within a stated float32 tolerance over a short horizon."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("jax", reason="the MJX backend needs the `mjx` extra (jax, mujoco-mjx)")
pytest.importorskip("mujoco.mjx", reason="the MJX backend needs the `mjx` extra (jax, mujoco-mjx)")

from rewardsmith.workers.mjx.envs import ENVS, MjxEnv, UnsupportedEnv, env_def  # noqa: E402

HORIZON = 20
"""Control steps compared: short, since chaotic contact dynamics amplify float32 rounding without bound."""
TOLERANCE = {"Hopper-v5": 1e-3, "Walker2d-v5": 1e-3, "HalfCheetah-v5": 1e-3, "Ant-v5": 5e-3}
"""Largest |difference| allowed in qpos/qvel/obs after HORIZON steps; 1e-4 where not named (no contacts)."""


def rollout(env_id: str, seed: int = 0):
    """(max |Δ| over the horizon for qpos, qvel, obs; terminations agree) for Gymnasium vs MJX."""
    import gymnasium as gym
    import jax

    genv = gym.make(env_id)
    obs, _ = genv.reset(seed=seed)
    base = genv.unwrapped
    menv = MjxEnv(env_id)
    d = menv.with_state(base.data.qpos.copy(), base.data.qvel.copy())
    step = jax.jit(lambda d, a: menv.step(d, a))
    observe, ended = jax.jit(menv.observe), jax.jit(menv.terminated)
    worst = {"obs": float(np.abs(np.asarray(observe(d)) - obs).max()), "qpos": 0.0, "qvel": 0.0}
    rng = np.random.default_rng(seed)
    agree = True
    for _ in range(HORIZON):
        action = rng.uniform(menv.action_low, menv.action_high).astype(np.float32)
        obs, _, terminated, _, _ = genv.step(action)
        d = step(d, action)
        worst["qpos"] = max(worst["qpos"], float(np.abs(np.asarray(d.qpos) - base.data.qpos).max()))
        worst["qvel"] = max(worst["qvel"], float(np.abs(np.asarray(d.qvel) - base.data.qvel).max()))
        worst["obs"] = max(worst["obs"], float(np.abs(np.asarray(observe(d)) - obs).max()))
        agree &= bool(ended(d)) == terminated
        if terminated:
            break
    return worst, agree


@pytest.mark.slow
@pytest.mark.parametrize("env_id", sorted(ENVS))
def test_mjx_env_matches_gymnasium(env_id):
    worst, agree = rollout(env_id)
    tolerance = TOLERANCE.get(env_id, 1e-4)
    assert agree, f"{env_id}: terminations differ"
    assert max(worst.values()) < tolerance, f"{env_id}: drift {worst} over {HORIZON} steps"


def test_reset_noise_and_layout_match_gymnasium():
    import gymnasium as gym
    import jax

    env = MjxEnv("InvertedDoublePendulum-v5")
    d = env.reset(jax.random.PRNGKey(0))
    genv = gym.make("InvertedDoublePendulum-v5")
    assert env.obs_size == genv.observation_space.shape[0]
    assert np.abs(np.asarray(d.qpos) - env.model.qpos0).max() <= 0.1
    assert env.dt == pytest.approx(genv.unwrapped.dt)


def test_humanoid_is_refused_with_its_reason():
    with pytest.raises(UnsupportedEnv, match="PGS"):
        env_def("Humanoid-v5")
    with pytest.raises(UnsupportedEnv, match="kwargs"):
        env_def("Hopper-v5", {"frame_skip": 2})
