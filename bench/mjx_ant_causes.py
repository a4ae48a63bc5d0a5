"""What made MJX's Ant differ from Gymnasium's, one experiment per suspected cause (docs/mjx.md, "Ant").

    python bench/mjx_ant_causes.py floor              # CPU MuJoCo vs itself, qpos perturbed: the chaos floor
    python bench/mjx_ant_causes.py stage --episodes 128   # (b) the contact-force observation read at three RK4 points
    python bench/mjx_ant_causes.py mjx --x64          # (a, c, d) MJX vs CPU MuJoCo from the same states, float64
    python bench/mjx_ant_causes.py mjx --as-shipped   # the same with MJX 3.3.0's own plane-capsule frames

`floor` and `mjx` start from Gymnasium's reset (seeds 0-7) and apply the same 20 uniform random actions; each
prints max |Δqpos| over the seeds at steps 1, 5, 10, 15, 20. `mjx` also runs one forward pass in MJX and in
MuJoCo from the same 160 states and compares contacts, contact frames, constraint forces and accelerations, and
prints the solver settings of the XML next to those `mjx.put_model` kept.
"""

from __future__ import annotations

import argparse

import numpy as np

SEEDS, HORIZON = 8, 20


def _actions() -> np.ndarray:
    return np.random.default_rng(0).uniform(-1, 1, (SEEDS, HORIZON, 8))


def cpu_rollouts(eps: float = 0.0) -> tuple[np.ndarray, np.ndarray, np.ndarray, list]:
    """Gymnasium's Ant from reset(seed) for each seed, qpos + eps * N(0, 1): per-step qpos, qvel, contact obs,
    and the states (qpos, qvel, action) before each step."""
    import gymnasium as gym

    rng, actions = np.random.default_rng(1), _actions()
    qpos, qvel, contact, states = [], [], [], []
    for s in range(SEEDS):
        env = gym.make("Ant-v5")
        env.reset(seed=s)
        base = env.unwrapped
        base.set_state(base.data.qpos + eps * rng.standard_normal(base.model.nq), base.data.qvel.copy())
        for t in range(HORIZON):
            states.append((base.data.qpos.copy(), base.data.qvel.copy(), actions[s, t]))
            obs, *_ = env.step(actions[s, t])
            qpos.append(base.data.qpos.copy()), qvel.append(base.data.qvel.copy()), contact.append(obs[27:])
    shape = (SEEDS, HORIZON, -1)
    return np.reshape(qpos, shape), np.reshape(qvel, shape), np.reshape(contact, shape), states


def drift_line(name: str, qpos: np.ndarray, ref: np.ndarray) -> str:
    """max |Δqpos| over the seeds at steps 1, 5, 10, 15, 20, and the first step above 1e-3 per seed."""
    dq = np.abs(qpos - ref).max(axis=2)
    first = [int(np.argmax(r > 1e-3)) + 1 if (r > 1e-3).any() else None for r in dq]
    at = " ".join(f"{dq[:, i].max():.1e}" for i in (0, 4, 9, 14, 19))
    return f"{name:34s} max|dqpos| at steps 1,5,10,15,20: {at} | first step > 1e-3 per seed: {first}"


def floor() -> None:
    ref = cpu_rollouts()[0]
    for eps in (1e-9, 1e-7, 1e-6):
        print(drift_line(f"CPU vs CPU, qpos + {eps:g} N(0,1)", cpu_rollouts(eps)[0], ref))


def stage(episodes: int, horizon: int = 200) -> None:
    """Gymnasium's episodes (random policy); the contact-force observation as Gymnasium reads it (RK4's last
    stage), at the start of the last substep (as MJX's data held it), and at the step's end state."""
    import gymnasium as gym
    import mujoco
    from scipy.stats import ks_2samp

    env = gym.make("Ant-v5")
    m, d = env.unwrapped.model, env.unwrapped.data
    scratch, rng = mujoco.MjData(m), np.random.default_rng(0)

    def recomputed() -> float:
        scratch.qpos[:], scratch.qvel[:], scratch.ctrl[:] = d.qpos, d.qvel, d.ctrl
        mujoco.mj_forward(m, scratch)
        mujoco.mj_rnePostConstraint(m, scratch)
        return float(np.abs(np.clip(scratch.cfrc_ext[1:], -1, 1)).mean())

    names = ("gymnasium (RK4 last stage)", "start of the last substep", "end state")
    means: dict[str, list[float]] = {n: [] for n in names}
    for e in range(episodes):
        env.reset(seed=e)
        values: dict[str, list[float]] = {n: [] for n in names}
        for _ in range(horizon):
            d.ctrl[:] = rng.uniform(-1, 1, 8)
            mujoco.mj_step(m, d, nstep=4)
            values[names[1]].append(recomputed())
            mujoco.mj_step(m, d, nstep=1)
            mujoco.mj_rnePostConstraint(m, d)
            values[names[0]].append(float(np.abs(np.clip(d.cfrc_ext[1:], -1, 1)).mean()))
            values[names[2]].append(recomputed())
            if not (np.isfinite(d.qpos).all() and 0.2 <= d.qpos[2] <= 1.0):
                break
        for n in names:
            means[n].append(float(np.mean(values[n])))
    ref = np.array(means[names[0]])
    for n in names:
        a = np.array(means[n])
        print(
            f"{n:28s} mean {a.mean():.5f}  ratio {a.mean() / ref.mean():.4f}  KS p vs Gymnasium {ks_2samp(a, ref).pvalue:.4f}"
        )


def mjx(x64: bool, as_shipped: bool) -> None:
    import jax

    if x64:
        jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp
    import mujoco
    from mujoco.mjx._src import collision_driver, collision_primitive
    from mujoco.mjx._src.types import GeomType

    from rewardsmith.workers.mjx.envs import MjxEnv

    env = MjxEnv("Ant-v5")
    if as_shipped:  # the table is read at trace time: MJX 3.3.0's own plane-capsule frames
        collision_driver._COLLISION_FUNC[(GeomType.PLANE, GeomType.CAPSULE)] = collision_primitive.plane_capsule
    m, mx, dtype = env.model, env.mx, env._blank.qpos.dtype
    print(
        f"dtype {dtype}; (d) XML: solver {m.opt.solver} iterations {m.opt.iterations} ls {m.opt.ls_iterations} "
        f"tol {m.opt.tolerance} ls_tol {m.opt.ls_tolerance} cone {m.opt.cone} integrator {m.opt.integrator}"
    )
    print(
        f"(d) mjx.Model: solver {int(mx.opt.solver)} iterations {int(mx.opt.iterations)} ls {int(mx.opt.ls_iterations)} "
        f"tol {float(mx.opt.tolerance):.3g} ls_tol {float(mx.opt.ls_tolerance):.3g} cone {int(mx.opt.cone)} "
        f"integrator {int(mx.opt.integrator)}"
    )
    ref_q, _, ref_c, states = cpu_rollouts()
    forward = jax.jit(jax.vmap(lambda q, v, c: env.forward(env._blank.replace(qpos=q, qvel=v, ctrl=c))))
    step, observe = jax.jit(jax.vmap(env.step)), jax.jit(jax.vmap(env.observe))

    def at(chunk):
        return forward(*(jnp.asarray(np.array([s[i] for s in chunk]), dtype) for i in range(3)))

    d = at([states[s * HORIZON] for s in range(SEEDS)])
    qpos, contact = [], []
    for t in range(HORIZON):
        d = step(d, jnp.asarray(_actions()[:, t], dtype))
        qpos.append(np.asarray(d.qpos)), contact.append(np.asarray(observe(d))[:, 27:])
    print(drift_line(f"MJX {dtype} vs CPU", np.stack(qpos, 1), ref_q))
    dc = np.abs(np.stack(contact, 1) - ref_c).max(axis=(0, 2))
    print("max |d contact obs| at steps 1,5,10,15,20:", " ".join(f"{dc[i]:.1e}" for i in (0, 4, 9, 14, 19)))
    # (c) one forward pass from the same states
    cpu, rows = mujoco.MjData(m), []
    for i in range(0, len(states), SEEDS):
        dm = at(states[i : i + SEEDS])
        for j, (q, v, c) in enumerate(states[i : i + SEEDS]):
            cpu.qpos[:], cpu.qvel[:], cpu.ctrl[:] = q, v, c
            mujoco.mj_forward(m, cpu)
            con = dm.contact
            active = np.flatnonzero(np.asarray(con.dist[j]) < np.asarray(con.includemargin[j]))
            tangent = []
            for k in range(cpu.ncon):
                pair = sorted(cpu.contact.geom[k])
                near = [a for a in active if sorted(np.asarray(con.geom[j, a])) == pair]
                a = min(near, key=lambda a: np.linalg.norm(np.asarray(con.pos[j, a]) - cpu.contact.pos[k]))
                cos = abs(np.dot(np.asarray(con.frame[j, a, 1]), cpu.contact.frame[k][3:6]))
                tangent.append(np.degrees(np.arccos(min(cos, 1.0))))
            rows.append(
                (
                    cpu.ncon,
                    len(active),
                    max(tangent, default=0.0),
                    np.abs(np.asarray(dm.qfrc_constraint[j]) - cpu.qfrc_constraint).max(),
                    np.abs(np.asarray(dm.qacc[j]) - cpu.qacc).max() / max(1.0, np.abs(cpu.qacc).max()),
                )
            )
    r = np.array(rows)
    print(
        f"(c) {len(r)} states, {int((r[:, 0] > 0).sum())} with contacts; contact count equal in "
        f"{int((r[:, 0] == r[:, 1]).sum())}; max tangent angle {r[:, 2].max():.2e} deg; "
        f"max |d qfrc_constraint| {r[:, 3].max():.2e} (median {np.median(r[:, 3]):.1e}); "
        f"max |d qacc| / max |qacc| {r[:, 4].max():.2e}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("experiment", choices=["floor", "stage", "mjx"])
    parser.add_argument("--episodes", type=int, default=128)
    parser.add_argument("--x64", action="store_true")
    parser.add_argument("--as-shipped", action="store_true")
    args = parser.parse_args()
    if args.experiment == "floor":
        floor()
    elif args.experiment == "stage":
        stage(args.episodes)
    else:
        mjx(args.x64, args.as_shipped)


if __name__ == "__main__":
    main()
