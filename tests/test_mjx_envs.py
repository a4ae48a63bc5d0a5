"""Parity of the MJX envs with Gymnasium's own v5 envs, on CPU JAX: the same reset, the same actions, the same
states, observations and terminations within a stated float32 tolerance over a short horizon (Ant is also compared
in distribution: `bench/gpu.py --agreement Ant-v5`). Pusher, refused, is measured: its arm moving freely agrees,
a scripted push of the object does not."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("jax", reason="the MJX backend needs the `mjx` extra (jax, mujoco-mjx)")
pytest.importorskip("mujoco.mjx", reason="the MJX backend needs the `mjx` extra (jax, mujoco-mjx)")

from rewardsmith.workers.mjx.envs import ENVS, MjxEnv, UnsupportedEnv, env_def, supported

pytestmark = pytest.mark.mjx

HORIZON = 20
"""Control steps compared: short, since chaotic contact dynamics amplify float32 rounding without bound."""
X64_TOLERANCE = 1e-8
"""Largest |difference| in qpos, qvel and obs over HORIZON steps with JAX in float64, every env: the port's check.
Measured (CPU JAX, seed 0): HalfCheetah 1.6e-10, Walker2d 2.1e-11, Pusher's arm 7.2e-12, Ant 4.5e-13, the others
under 1e-14."""
F32_TOLERANCE = 1e-3
"""The same bound in float32, as training runs. HalfCheetah's velocities (qvel, and obs, which holds them) are not
bounded in float32: its floor contacts amplify rounding by an amount that depends on the CPU XLA compiles for
(7.4e-4, 6.7e-3 and 1.18e-2 on three machines, while float64 agrees to 1.6e-10), so there only its qpos is held
(1.3e-4 and 3.3e-4 measured). The others, measured here in float32: Walker2d 8.9e-5, Ant 9.7e-5, Hopper 6.8e-6,
Pusher's arm 5.1e-6, Reacher 2.5e-6, IDP 2.3e-6."""
F32_UNBOUNDED = {"HalfCheetah-v5": ("qvel", "obs")}


def mjx_rollout(menv, seed: int, actions):
    """MJX's reset from `seed`, then `actions`: (qpos0, qvel0, obs0, per-step (qpos, qvel, obs, ended)), one jit."""
    import jax

    def run(key, actions):
        d = menv.reset(key)

        def body(d, a):
            d = menv.step(d, a)
            return d, (d.qpos, d.qvel, menv.observe(d), menv.terminated(d))

        return d.qpos, d.qvel, menv.observe(d), jax.lax.scan(body, d, actions)[1]

    out = jax.jit(run)(jax.random.PRNGKey(seed), actions)
    return jax.tree_util.tree_map(np.asarray, out)


def parity(env_id: str, seed: int = 0):
    """(max |Δ| over the horizon for qpos, qvel, obs; terminations agree; MJX's reset state) from MJX's reset,
    copied into Gymnasium's env, then the same random actions in both, in the precision this process's JAX runs."""
    import gymnasium as gym

    genv = gym.make(env_id)
    genv.reset(seed=seed)
    base = genv.unwrapped
    menv = MjxEnv(env_id, measure_only=True)  # measure_only: also Pusher, ported but refused
    rng = np.random.default_rng(seed)
    actions = rng.uniform(menv.action_low, menv.action_high, (HORIZON, menv.action_size)).astype(np.float32)
    qpos0, qvel0, obs0, (qpos, qvel, obs, ended) = mjx_rollout(menv, seed, actions)
    base.set_state(qpos0.astype(np.float64), qvel0.astype(np.float64))
    worst = {"obs": float(np.abs(obs0 - base._get_obs()).max()), "qpos": 0.0, "qvel": 0.0}
    agree = True
    for t, action in enumerate(actions):
        gobs, _, terminated, _, _ = genv.step(action)
        worst["qpos"] = max(worst["qpos"], float(np.abs(qpos[t] - base.data.qpos).max()))
        worst["qvel"] = max(worst["qvel"], float(np.abs(qvel[t] - base.data.qvel).max()))
        worst["obs"] = max(worst["obs"], float(np.abs(obs[t] - gobs).max()))
        agree &= bool(ended[t]) == terminated
        if terminated:
            break
    return worst, agree, (qpos0, qvel0)


def parity_in_float64(env_id: str):
    """`parity` in a fresh process with JAX in float64 (JAX_ENABLE_X64): switching precision inside one process
    reuses float32 lowerings (MLIR "operand type mismatch" in `jnp.tril` once float32 tests have run)."""
    import json
    import os
    import subprocess
    import sys

    env = {**os.environ, "JAX_ENABLE_X64": "1"}
    out = subprocess.run(
        [sys.executable, __file__, env_id], env=env, capture_output=True, text=True, check=False, timeout=1100
    )
    assert out.returncode == 0, out.stderr[-3000:]
    worst, agree, start = json.loads(out.stdout.splitlines()[-1])
    return worst, agree, tuple(np.array(x) for x in start)


@pytest.mark.slow
@pytest.mark.timeout(1200)  # one XLA compile of MJX's step: ~1 min of CPU, over 7 min on a loaded 2-core machine
@pytest.mark.parametrize("x64", [True, False], ids=["float64", "float32"])
@pytest.mark.parametrize("env_id", sorted(ENVS))  # Pusher's arm alone: the 20 random steps do not reach the object
def test_mjx_env_matches_gymnasium(env_id, x64):
    worst, agree, (qpos0, qvel0) = parity_in_float64(env_id) if x64 else parity(env_id)
    print(env_id, "float64" if x64 else "float32", "drift", worst)
    assert agree, f"{env_id}: terminations differ"
    held = worst if x64 else {k: v for k, v in worst.items() if k not in F32_UNBOUNDED.get(env_id, ())}
    tolerance = X64_TOLERANCE if x64 else F32_TOLERANCE
    assert max(held.values()) < tolerance, f"{env_id}: drift {worst} over {HORIZON} steps"
    spec = env_def(env_id, measure_only=True)
    if spec.goal == "pusher":  # the object outside the goal's 0.17 disc, the goal at the origin, both at rest
        assert np.linalg.norm(qpos0[-4:-2]) > 0.17 and not qpos0[-2:].any() and not qvel0[-4:].any()
        assert -0.3 <= qpos0[-4] <= 0.0 and -0.2 <= qpos0[-3] <= 0.2
    elif spec.goal == "reacher":
        assert np.linalg.norm(qpos0[-2:]) < 0.2 and not qvel0[-2:].any()
    else:  # the reset noise around qpos0
        import gymnasium as gym

        assert np.abs(qpos0 - gym.make(env_id).unwrapped.init_qpos).max() <= spec.noise


PUSH_SEED, PUSH_STEPS, PUSH_SWITCH = 1, 30, 15
PUSH_POSES = np.array([[0.57, 1.007, 0.0, -1.206, 0.0, 0.0, 0.0], [0.57, 0.332, 0.0, 0.0, 0.0, 0.0, 0.0]])
"""Pusher from Gymnasium's reset(seed=1), a joint-space PD toward the first pose (the arm's tip 0.12 short of the
object on the line from the arm's base, at the object's height, by inverse kinematics), then from step 15 the
second (0.15 past it): the wrist's capsules meet the object's side at step 16 and push it about 7 mm by 30."""
PUSH_TOLERANCE = 1e-3
"""The parity tolerance the push would need to meet for Pusher to be supported (the others' 1e-3). Measured on
CPU JAX: 0.020 in qpos, 0.096 in qvel (docs/mjx.md); the arm alone, before the contact, 1.2e-6."""


def push_in_gymnasium():
    """(start qpos, qvel; the script's float32 actions; per-step qpos, qvel, obs; arm-object contacts per step)."""
    import gymnasium as gym
    import mujoco

    genv = gym.make("Pusher-v5")
    genv.reset(seed=PUSH_SEED)
    m, d = genv.unwrapped.model, genv.unwrapped.data
    start = d.qpos.copy(), d.qvel.copy()
    target = m.body("object").geomadr[0]
    arm = {g for g in range(m.ngeom) if m.geom_type[g] == mujoco.mjtGeom.mjGEOM_CAPSULE}
    actions, qpos, qvel, obs, touching = [], [], [], [], []
    for t in range(PUSH_STEPS):
        action = np.clip(5.0 * (PUSH_POSES[int(t >= PUSH_SWITCH)] - d.qpos[:7]) - 0.5 * d.qvel[:7], -2.0, 2.0).astype(
            np.float32
        )
        o, *_ = genv.step(action)
        pairs = [set(d.contact.geom[k]) for k in range(d.ncon)]
        touching.append(sum(target in p and bool(p & arm) for p in pairs))
        actions.append(action), qpos.append(d.qpos.copy()), qvel.append(d.qvel.copy()), obs.append(o)
    return start, np.array(actions), np.array(qpos), np.array(qvel), np.array(obs), np.array(touching)


@pytest.mark.slow
@pytest.mark.timeout(1200)
def test_mjx_pusher_push_still_disagrees_so_pusher_stays_refused():
    import jax

    (qpos0, qvel0), actions, qpos, qvel, obs, touching = push_in_gymnasium()
    assert touching.sum() > 0, "the script no longer drives the arm into the object"
    assert np.linalg.norm(qpos[-1, -4:-2] - qpos0[-4:-2]) > 5e-3, "the object did not move"
    first = int(np.argmax(touching > 0))
    menv = MjxEnv("Pusher-v5", measure_only=True)

    def run(q, v, actions):
        def body(d, a):
            d = menv.step(d, a)
            return d, (d.qpos, d.qvel, menv.observe(d))

        return jax.lax.scan(body, menv.with_state(q, v), actions)[1]

    mq, mv, mo = (np.asarray(x) for x in jax.jit(run)(qpos0, qvel0, actions))
    pairs = (("qpos", mq, qpos), ("qvel", mv, qvel), ("obs", mo, obs))
    before = {k: float(np.abs(a[:first] - b[:first]).max()) for k, a, b in pairs}
    worst = {k: float(np.abs(a - b).max()) for k, a, b in pairs}
    print("Pusher push drift: before the contact", before, "over the push", worst)
    assert max(before.values()) < PUSH_TOLERANCE, f"Pusher: the arm alone drifts {before}"
    # the capsule-cylinder contact is why Pusher is refused: when MJX matches MuJoCo here, support it
    assert max(worst.values()) > PUSH_TOLERANCE, f"Pusher's push now agrees ({worst}): take it off UNSUPPORTED"
    with pytest.raises(UnsupportedEnv, match="capsules with the object's cylinder"):
        env_def("Pusher-v5")


@pytest.mark.parametrize("env_id", ["InvertedDoublePendulum-v5", "Pusher-v5"])
def test_layout_and_step_length_match_gymnasium(env_id):
    import gymnasium as gym

    env, genv = MjxEnv(env_id, measure_only=True), gym.make(env_id)
    assert env.obs_size == genv.observation_space.shape[0]
    assert env.dt == pytest.approx(genv.unwrapped.dt)
    assert env.spec.max_steps == genv.spec.max_episode_steps


def test_humanoid_is_refused_with_its_reason():
    with pytest.raises(UnsupportedEnv, match="PGS"):
        env_def("Humanoid-v5")
    assert supported("Ant-v5")  # no longer refused: it matches Gymnasium step by step and in distribution
    with pytest.raises(UnsupportedEnv, match="kwargs"):
        env_def("Hopper-v5", {"frame_skip": 2})


def test_never_ending_episodes_and_the_specs_time_limit_as_gymnasium_has_them():
    """hopper-backflip's env (`terminate_when_unhealthy = false`, 500-step episodes) trains on MJX as Gymnasium
    runs it: a hopper lying down does not end the episode there either, and the episode is the spec's length."""
    import gymnasium as gym

    from rewardsmith.task import load_task, make_env

    spec = load_task("hopper-backflip")
    env = MjxEnv.for_spec(spec)
    default = MjxEnv("Hopper-v5")
    genv = make_env(spec)
    assert env.spec.max_steps == spec.train.max_episode_steps == genv.spec.max_episode_steps == 500
    assert default.spec.max_steps == gym.make("Hopper-v5").spec.max_episode_steps == 1000
    base = genv.unwrapped
    genv.reset(seed=0)
    lying = base.init_qpos.copy()
    lying[1] = 0.3  # the torso 0.3 m up: far below the healthy height (0.7)
    fallen = env.forward(env._blank.replace(qpos=lying.astype(np.float32)))
    assert bool(default.terminated(fallen)) and not bool(env.terminated(fallen))
    base.set_state(lying, np.zeros(base.model.nv))
    assert not genv.step(np.zeros(base.model.nu, dtype=np.float32))[2]  # Gymnasium: not terminated either
    assert supported("Walker2d-v5", {"terminate_when_unhealthy": False})
    for env_id, kwargs in [
        ("InvertedDoublePendulum-v5", {"terminate_when_unhealthy": False}),  # its class has no such kwarg
        ("Hopper-v5", {"terminate_when_unhealthy": "no"}),
        ("Hopper-v5", {"terminate_when_unhealthy": False, "healthy_z_range": (0.5, 2.0)}),
    ]:
        assert not supported(env_id, kwargs)
        with pytest.raises(UnsupportedEnv, match="kwargs"):
            env_def(env_id, kwargs)


if __name__ == "__main__":  # `parity_in_float64`'s child: one env's parity as a JSON line
    import json
    import sys

    import jax

    assert jax.config.jax_enable_x64, "run with JAX_ENABLE_X64=1"
    worst, agree, (qpos0, qvel0) = parity(sys.argv[1])
    print(json.dumps([worst, agree, [qpos0.tolist(), qvel0.tolist()]]))
