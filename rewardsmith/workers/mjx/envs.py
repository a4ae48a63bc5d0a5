"""Gymnasium's MuJoCo v5 locomotion envs on MJX: the same XML files, frame skip, observation layout, reset noise
and termination rules, stepped in JAX so that thousands run in parallel on one device.

Every function here is pure JAX over an `mjx.Data` (one env; `jax.vmap` makes a batch), stepped by `physics.step`
(MJX's step with MuJoCo's plane-capsule contact frames and RK4's last stage left in the data, as `mj_step`
leaves them). Not supported, with a stated reason (`UnsupportedEnv`, `UNSUPPORTED`): Humanoid and
HumanoidStandup (their XML uses the PGS solver, which MJX refuses; changing the solver would change the dynamics
silently), Pusher (ported, but MJX's capsule-cylinder collider disagrees with MuJoCo's where the arm meets the
object), and every env kwarg but `terminate_when_unhealthy` (the layout below is the v5 defaults').
A spec's `max_episode_steps` replaces the time limit, as `make_env`'s TimeLimit does on the CPU.

Ant's `cfrc_ext` observations need `rne_postconstraint` after each step, which `mjx.step` does not run; it is
run here after the last substep, as Gymnasium's `do_simulation` does.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rewardsmith.errors import RewardsmithError
from rewardsmith.workers.mjx import physics

if TYPE_CHECKING:
    from rewardsmith.task import TaskSpec


class UnsupportedEnv(RewardsmithError):
    """The env cannot run on MJX with Gymnasium's dynamics."""


UNSUPPORTED = {
    "Humanoid-v5": "its XML uses the PGS solver, which MJX does not implement (changing it would change the dynamics)",
    "HumanoidStandup-v5": "its XML uses the PGS solver, which MJX does not implement",
    "Pusher-v5": (
        "MJX 3.3.0 collides its arm's capsules with the object's cylinder by an SDF search that gives two contacts "
        "where MuJoCo gives one, with other normals (11 degrees apart on the object's side, 48 on its rim): from "
        "the same state the object accelerates about twice as fast, and a scripted push leaves Gymnasium's by 0.02 "
        "in qpos and 0.1 in qvel within 15 steps of contact (docs/mjx.md), so a policy would learn another push"
    ),
}
"""Refused with the reason; an id that is also in ENVS is ported but fails parity (`measure_only` builds it)."""


@dataclass(frozen=True)
class EnvDef:
    """What makes one Gymnasium v5 env: its XML, frame skip, time limit, reset noise, observation and end."""

    xml: str
    frame_skip: int
    max_steps: int
    noise: float
    obs: Callable[[Any], Any]
    healthy: Callable[[Any], Any] | None  # None: never terminates
    vel_noise: str = "uniform"  # "uniform" (Hopper, Walker2d) or "normal" (HalfCheetah, Ant, IDP)
    post_constraint: bool = False  # Ant: cfrc_ext for the observation
    goal: str | None = None  # "reacher" or "pusher": their resets place a target (and Pusher's object)


def _jnp():
    import jax.numpy as jnp

    return jnp


def _hopper_obs(d):
    jnp = _jnp()
    return jnp.concatenate([d.qpos[1:], jnp.clip(d.qvel, -10.0, 10.0)])


def _cheetah_obs(d):
    jnp = _jnp()
    return jnp.concatenate([d.qpos[1:], d.qvel])


def _ant_obs(d):
    jnp = _jnp()
    return jnp.concatenate([d.qpos[2:], d.qvel, jnp.clip(d.cfrc_ext[1:], -1.0, 1.0).ravel()])


def _idp_obs(d):
    jnp = _jnp()
    q = d.qpos
    return jnp.concatenate(
        [
            q[:1],
            jnp.sin(q[1:]),
            jnp.cos(q[1:]),
            jnp.clip(d.qvel, -10.0, 10.0),
            jnp.clip(d.qfrc_constraint, -10.0, 10.0)[:1],
        ]
    )


def _reacher_obs(d):
    jnp = _jnp()
    theta = d.qpos[:2]
    # body 3 is the fingertip, body 4 the target (Gymnasium's get_body_com reads xpos)
    return jnp.concatenate([jnp.cos(theta), jnp.sin(theta), d.qpos[2:], d.qvel[:2], (d.xpos[3] - d.xpos[4])[:2]])


def _pusher_obs(d):
    jnp = _jnp()
    # bodies 10, 11, 12: tips_arm, object, goal (Gymnasium's get_body_com reads xpos)
    return jnp.concatenate([d.qpos[:7], d.qvel[:7], d.xpos[10], d.xpos[11], d.xpos[12]])


def _hopper_healthy(d):
    jnp = _jnp()
    state = jnp.concatenate([d.qpos, d.qvel])[2:]
    z, angle = d.qpos[1], d.qpos[2]
    return jnp.all((state > -100.0) & (state < 100.0)) & (z > 0.7) & (angle > -0.2) & (angle < 0.2)


def _walker_healthy(d):
    z, angle = d.qpos[1], d.qpos[2]
    return (z > 0.8) & (z < 2.0) & (angle > -1.0) & (angle < 1.0)


def _ant_healthy(d):
    jnp = _jnp()
    state = jnp.concatenate([d.qpos, d.qvel])
    return jnp.all(jnp.isfinite(state)) & (d.qpos[2] >= 0.2) & (d.qpos[2] <= 1.0)


def _idp_healthy(d):
    return d.site_xpos[0, 2] > 1.0


ENVS: dict[str, EnvDef] = {
    "Hopper-v5": EnvDef("hopper.xml", 4, 1000, 5e-3, _hopper_obs, _hopper_healthy),
    "Walker2d-v5": EnvDef("walker2d_v5.xml", 4, 1000, 5e-3, _hopper_obs, _walker_healthy),
    "HalfCheetah-v5": EnvDef("half_cheetah.xml", 5, 1000, 0.1, _cheetah_obs, None, "normal"),
    "Ant-v5": EnvDef("ant.xml", 5, 1000, 0.1, _ant_obs, _ant_healthy, "normal", post_constraint=True),
    "InvertedDoublePendulum-v5": EnvDef("inverted_double_pendulum.xml", 5, 1000, 0.1, _idp_obs, _idp_healthy, "normal"),
    "Reacher-v5": EnvDef("reacher.xml", 2, 50, 0.1, _reacher_obs, None, goal="reacher"),
    "Pusher-v5": EnvDef("pusher_v5.xml", 5, 100, 0.0, _pusher_obs, None, goal="pusher"),
}


ENDS_EARLY = "terminate_when_unhealthy"
"""The one env kwarg the MJX envs take, on the envs whose Gymnasium class takes it: False means an episode never
ends early (`EnvDef.healthy` None), as Gymnasium's env then does."""
TAKES_ENDS_EARLY = ("Hopper-v5", "Walker2d-v5", "Ant-v5")


def env_def(
    env_id: str, kwargs: dict | None = None, measure_only: bool = False, max_steps: int | None = None
) -> EnvDef:
    """The definition of a supported env with these kwargs and time limit (`max_steps`: the spec's
    `max_episode_steps`; None keeps the v5 one), or UnsupportedEnv naming why not (`measure_only`: also the
    ported envs that fail parity, for the parity tests to measure them)."""
    if env_id in UNSUPPORTED and not (measure_only and env_id in ENVS):
        raise UnsupportedEnv(f"{env_id} is not supported by the MJX backend: {UNSUPPORTED[env_id]}")
    if env_id not in ENVS:
        raise UnsupportedEnv(f"{env_id} is not supported by the MJX backend (supported: {', '.join(ENVS)})")
    rest = dict(kwargs or {})
    ends_early = rest.pop(ENDS_EARLY, True) if env_id in TAKES_ENDS_EARLY else True
    if rest or not isinstance(ends_early, bool):
        shown = sorted(rest) if rest else [f"{ENDS_EARLY}={ends_early!r}"]
        raise UnsupportedEnv(
            f"{env_id} with env kwargs {shown} is not supported by the MJX backend (it takes only {ENDS_EARLY} "
            f"= true/false, on {', '.join(TAKES_ENDS_EARLY)})"
        )
    spec = ENVS[env_id]
    if not ends_early:
        spec = replace(spec, healthy=None)
    return replace(spec, max_steps=int(max_steps)) if max_steps else spec


def supported(env_id: str, kwargs: dict | None = None) -> bool:
    """True when `env_id` (with these kwargs) runs on the MJX backend."""
    try:
        env_def(env_id, kwargs)
    except UnsupportedEnv:
        return False
    return True


def xml_path(name: str) -> Path:
    """Gymnasium's own copy of a model file (never Brax's bundled models)."""
    import gymnasium

    return Path(gymnasium.__file__).parent / "envs" / "mujoco" / "assets" / name


def _pusher_object(key):
    """Pusher's object position: uniform in [-0.3, 0] x [-0.2, 0.2], redrawn until farther than 0.17 from the goal."""
    import jax

    jnp = _jnp()

    def draw(state):
        key, _ = state
        key, k = jax.random.split(key)
        return key, jax.random.uniform(k, (2,), minval=jnp.array([-0.3, -0.2]), maxval=jnp.array([0.0, 0.2]))

    start = (key, jnp.zeros(2))
    return jax.lax.while_loop(lambda state: jnp.linalg.norm(state[1]) <= 0.17, draw, start)[1]


class MjxEnv:
    """One Gymnasium v5 env on MJX. `reset(key)` and `step(data, action)` are pure and jit/vmap-able."""

    def __init__(
        self, env_id: str, kwargs: dict | None = None, measure_only: bool = False, max_steps: int | None = None
    ) -> None:
        self.env_id = env_id
        self.spec = env_def(env_id, kwargs, measure_only, max_steps)  # before JAX: an unsupported env fails fast
        import jax
        import mujoco
        from mujoco import mjx

        physics.install()
        self.model = mujoco.MjModel.from_xml_path(str(xml_path(self.spec.xml)))
        self.mx = mjx.put_model(self.model)
        self.dt = float(self.model.opt.timestep) * self.spec.frame_skip
        self.action_size = int(self.model.nu)
        low, high = self.model.actuator_ctrlrange.T
        self.action_low, self.action_high = low.copy(), high.copy()
        self._blank = mjx.make_data(self.mx)
        self.obs_size = int(jax.eval_shape(lambda d: self.observe(self.forward(d)), self._blank).shape[0])

    @classmethod
    def for_spec(cls, spec: TaskSpec) -> MjxEnv:
        """The env a task spec trains on: its env, env kwargs and `max_episode_steps`."""
        return cls(spec.env, spec.env_kwargs, max_steps=spec.train.max_episode_steps)

    def forward(self, d):
        """Positions, velocities and forces from qpos/qvel (as `set_state`'s `mj_forward`, which leaves `cfrc_ext`
        as `mj_resetData` left it: zero, so Ant's first observation has no contact forces in either)."""
        from mujoco import mjx

        return mjx.forward(self.mx, d)

    def with_state(self, qpos, qvel):
        """An `mjx.Data` at this qpos/qvel (Gymnasium's `set_state`)."""
        jnp = _jnp()
        blank = self._blank
        return self.forward(
            blank.replace(qpos=jnp.asarray(qpos, blank.qpos.dtype), qvel=jnp.asarray(qvel, blank.qvel.dtype))
        )

    def reset(self, key):
        """A fresh `mjx.Data` with the v5 env's reset noise around the model's qpos0."""
        import jax

        jnp = _jnp()
        s, m = self.spec, self.model
        k1, k2, k3 = jax.random.split(key, 3)
        qpos = jnp.asarray(m.qpos0) + jax.random.uniform(k1, (m.nq,), minval=-s.noise, maxval=s.noise)
        if s.vel_noise == "normal":
            qvel = s.noise * jax.random.normal(k2, (m.nv,))
        else:
            scale = 0.005 if s.goal else s.noise
            qvel = jax.random.uniform(k2, (m.nv,), minval=-scale, maxval=scale)
        if s.goal == "reacher":  # the target uniform in the disc of radius 0.2 (the rejection loop's distribution)
            angle = jax.random.uniform(k3, (), minval=0.0, maxval=2 * jnp.pi)
            radius = 0.2 * jnp.sqrt(jax.random.uniform(jax.random.fold_in(k3, 1), ()))
            qpos = qpos.at[-2:].set(radius * jnp.array([jnp.cos(angle), jnp.sin(angle)]))
            qvel = qvel.at[-2:].set(0.0)
        elif s.goal == "pusher":  # the object as Gymnasium's rejection loop places it; the goal at the origin
            qpos = qpos.at[-4:-2].set(_pusher_object(k3)).at[-2:].set(0.0)
            qvel = qvel.at[-4:].set(0.0)
        return self.with_state(qpos, qvel)

    def step(self, d, action):
        """One control step: `frame_skip` physics substeps with `ctrl = action` (as Gymnasium's `do_simulation`)."""
        import jax
        from mujoco import mjx

        d = d.replace(ctrl=action.astype(d.ctrl.dtype))
        d = jax.lax.fori_loop(0, self.spec.frame_skip, lambda _, x: physics.step(self.mx, x), d)
        if self.spec.post_constraint:
            d = mjx.rne_postconstraint(self.mx, d)
        return d

    def observe(self, d):
        """The v5 observation of `d`."""
        return self.spec.obs(d)

    def terminated(self, d):
        """True where the v5 env ends the episode (unhealthy), as a JAX bool."""
        jnp = _jnp()
        return jnp.logical_not(self.spec.healthy(d)) if self.spec.healthy is not None else jnp.bool_(False)
