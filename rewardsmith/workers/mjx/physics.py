"""Where MJX 3.3.0's step departs from MuJoCo's C step (what Gymnasium runs), and the corrections the envs use.

1. **Plane-capsule contact frames.** MuJoCo's C collider gives each plane-capsule contact the capsule's axis as
   its first tangent, which `mju_makeFrame` projects onto the plane; MJX 3.3.0's `plane_capsule` drops the axis
   for the world's y axis once the capsule is steeper than 60 degrees. With a pyramidal friction cone (every
   Gymnasium MuJoCo env) the tangent orients the pyramid, so the friction forces differ: on Ant's steep legs,
   up to 29 N in `qfrc_constraint` from the same state in float64, and trajectories that leave MuJoCo's within
   5 steps (docs/mjx.md). `install()` puts a collider with MuJoCo's rule into MJX's collision table.
2. **What RK4 leaves in the data.** MuJoCo's `mj_RungeKutta` leaves the derived fields (`xpos`, contacts,
   constraint forces, so `cfrc_ext` after `mj_rnePostConstraint`) at its last stage; MJX's `rungekutta4` at the
   step's start. `step` keeps the last stage, so what reads them (Ant's `cfrc_ext`, Reacher's `xpos`, IDP's
   `qfrc_constraint` and `site_xpos`) reads what Gymnasium's env reads. (Euler, Pusher's integrator, leaves
   them at the step's start in both.)

Both reach into `mujoco.mjx._src`, which is why the `mjx` extra pins mujoco-mjx to 3.3.0.
"""

from __future__ import annotations

_installed = False


def _plane_capsule():
    """MJX's plane-capsule collider with MuJoCo's contact frame (`mjc_PlaneCapsule`, then `mju_makeFrame`)."""
    import jax
    import jax.numpy as jnp
    from mujoco.mjx._src import math
    from mujoco.mjx._src.collision_primitive import _plane_sphere, collider

    @collider(ncon=2)
    def plane_capsule(plane, cap):
        n, axis = plane.mat[:, 2], cap.mat[:, 2]
        tangent, norm = math.normalize_with_norm(axis - n * jnp.dot(n, axis))
        # mju_normalize3 of a (near) zero vector gives (1, 0, 0): only a capsule exactly along the normal
        tangent = jnp.where(norm < 1e-6, jnp.array([1.0, 0.0, 0.0], dtype=n.dtype), tangent)
        frame = jnp.array([[n, tangent, jnp.cross(n, tangent)]])
        collisions = []
        for offset in (axis * cap.size[1], -axis * cap.size[1]):
            dist, pos = _plane_sphere(n, plane.pos, cap.pos + offset, cap.size[0])
            collisions.append((dist[None], pos[None], frame))
        return jax.tree_util.tree_map(lambda *x: jnp.concatenate(x), *collisions)

    return plane_capsule


def install() -> None:
    """Put MuJoCo's plane-capsule contact frame into MJX's collision table (once per process)."""
    global _installed
    if _installed:
        return
    from mujoco.mjx._src import collision_driver
    from mujoco.mjx._src.types import GeomType

    collision_driver._COLLISION_FUNC[(GeomType.PLANE, GeomType.CAPSULE)] = _plane_capsule()
    _installed = True


def _rungekutta4(m, d):
    """MJX's `rungekutta4`, leaving the last stage's derived fields in the data, as `mj_RungeKutta` does."""
    import jax
    import jax.numpy as jnp
    from mujoco import mjx
    from mujoco.mjx._src import forward, scan

    start = d
    a, b = forward._RK4_A, forward._RK4_B
    times = d.time + jnp.tril(a).sum(axis=0) * m.opt.timestep
    qvel, qacc, act_dot = b[0] * d.qvel, b[0] * d.qacc, b[0] * d.act_dot

    def integrate(*args):
        return forward._integrate_pos(*args, dt=m.opt.timestep)

    def stage(carry, x):
        qvel, qacc, act_dot, kqvel, d = carry
        weight, weight_sum, t = x
        qpos = scan.flat(m, integrate, "jqv", "q", m.jnt_type, start.qpos, weight * kqvel)
        kqvel = start.qvel + weight * d.qacc * m.opt.timestep
        act = start.act + weight * d.act_dot * m.opt.timestep
        d = mjx.forward(m, d.replace(qpos=qpos, qvel=kqvel, act=act, time=t))
        return (qvel + weight_sum * kqvel, qacc + weight_sum * d.qacc, act_dot + weight_sum * d.act_dot, kqvel, d), None

    table = jnp.vstack([jnp.diag(a), b[1:4], times]).T
    (qvel, qacc, act_dot, _, last), _ = jax.lax.scan(stage, (qvel, qacc, act_dot, d.qvel, d), table, unroll=3)
    last = last.replace(qpos=start.qpos, qvel=start.qvel, act=start.act, time=start.time)
    return forward._advance(m, last, act_dot, qacc, qvel)


def step(m, d):
    """One physics step as MuJoCo's `mj_step` leaves the data (MJX's `step` otherwise)."""
    from mujoco import mjx
    from mujoco.mjx._src.types import IntegratorType

    if m.opt.integrator != IntegratorType.RK4:
        return mjx.step(m, d)
    return _rungekutta4(m, mjx.forward(m, d))
