"""`State`: a cheap, read-only snapshot of an env that reward files read by name.

One snapshot is taken per env step (the `next_state` of step t is the `state` of step t+1), copying
only a few small arrays. Named lookups (`state.body("torso").pos`) resolve through a per-model
`StateSchema` built once; everything else (velocities, rotation matrices, contacts) is computed on access.

Any Gymnasium env works: without a MuJoCo model a State has `obs`, `dt` and `time` only. A dict
observation (goal-conditioned envs) is split: `obs` is its flat `observation` entry, `goal` its
`desired_goal`, `achieved_goal` its `achieved_goal`, and `parts` every entry by name.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from functools import cached_property
from typing import NamedTuple

import numpy as np

from rewardsmith.sandbox.policy import frozen_copy

_FREE, _BALL, _SLIDE, _HINGE = 0, 1, 2, 3
_QPOS_SIZE = {_FREE: 7, _BALL: 4, _SLIDE: 1, _HINGE: 1}
_QVEL_SIZE = {_FREE: 6, _BALL: 3, _SLIDE: 1, _HINGE: 1}
_COM_FIELDS = frozenset({"cvel", "subtree_com"})
_CONTACTS = "contacts"  # a pseudo-field in `used_fields`: some reward read the contacts
JOINT_TYPE_NAMES = {_FREE: "free", _BALL: "ball", _SLIDE: "slide", _HINGE: "hinge"}


def _frozen(array: np.ndarray) -> np.ndarray:
    """A read-only float64 view of a private copy (as `policy.frozen_copy`: setflags(write=True) on it fails)."""
    if type(array) is np.ndarray and array.dtype.kind == "f":  # the hot path: MuJoCo, Box2D and env arrays
        copy = array.astype(np.float64)  # always a fresh copy, float32 converted on the way
        copy.flags.writeable = False
        return copy[...]  # a view of a read-only base
    return frozen_copy(np.asarray(array, dtype=np.float64))


def _frozen_flat(array) -> np.ndarray:
    """`_frozen`, flattened to 1-D (a dict observation's part)."""
    copy = np.asarray(array, dtype=np.float64).flatten()  # flatten always copies: the base is private
    copy.flags.writeable = False
    return copy[...]


_EMPTY = _frozen(np.zeros(0))  # qpos/qvel of an env without a MuJoCo model, shared: read-only and empty


@dataclass(frozen=True)
class JointSlot:
    """Where a joint lives in qpos/qvel."""

    name: str
    kind: str
    qpos: slice
    qvel: slice


class StateSchema:
    """Name-to-index maps of one MuJoCo model, built once per env."""

    def __init__(self, model) -> None:
        import mujoco

        def names(obj, count: int) -> list[str]:
            return [mujoco.mj_id2name(model, obj, i) or f"{obj.name.lower()[5:]}_{i}" for i in range(count)]

        self.body_names = names(mujoco.mjtObj.mjOBJ_BODY, model.nbody)
        self.site_names = names(mujoco.mjtObj.mjOBJ_SITE, model.nsite)
        self.actuator_names = names(mujoco.mjtObj.mjOBJ_ACTUATOR, model.nu)
        self.geom_names = names(mujoco.mjtObj.mjOBJ_GEOM, model.ngeom)
        self.tendon_names = names(mujoco.mjtObj.mjOBJ_TENDON, model.ntendon)
        self.bodies = {n: i for i, n in enumerate(self.body_names)}
        self.sites = {n: i for i, n in enumerate(self.site_names)}
        self.geoms = {n: i for i, n in enumerate(self.geom_names)}
        self.geom_body = np.asarray(model.geom_bodyid).copy()
        self.body_root = np.asarray(model.body_rootid).copy()
        self.used_fields: set[str] = set()
        self._model = model
        self._scratch = None
        self.joints: dict[str, JointSlot] = {}
        for j, name in enumerate(names(mujoco.mjtObj.mjOBJ_JOINT, model.njnt)):
            kind = int(model.jnt_type[j])
            qa, va = int(model.jnt_qposadr[j]), int(model.jnt_dofadr[j])
            self.joints[name] = JointSlot(
                name, JOINT_TYPE_NAMES[kind], slice(qa, qa + _QPOS_SIZE[kind]), slice(va, va + _QVEL_SIZE[kind])
            )

    def sync(self, data, with_com: bool = True) -> None:
        """Recompute positions (and com velocities) from data.qpos/qvel; MuJoCo leaves them a substep stale."""
        import mujoco

        mujoco.mj_kinematics(self._model, data)
        if with_com:
            mujoco.mj_comPos(self._model, data)
            mujoco.mj_comVel(self._model, data)

    def recompute(self, qpos: np.ndarray, qvel: np.ndarray):
        """Positions and velocities from qpos/qvel on a scratch MjData (for a field first read late)."""
        import mujoco

        data = self._scratch
        if data is None:
            data = self._scratch = mujoco.MjData(self._model)
        data.qpos[:], data.qvel[:] = qpos, qvel
        self.sync(data)
        return data

    def unknown(self, what: str, name: str, known: dict) -> KeyError:
        return KeyError(f"no {what} named {name!r}; known {what}s: {', '.join(known)}")

    def contacts(self, data) -> tuple[Contact, ...]:
        """The active contacts of `data` with their normal forces (N), as name tuples."""
        import mujoco

        found = []
        force = np.zeros(6)
        for i in range(int(data.ncon)):
            c = data.contact[i]
            g1, g2 = int(c.geom1), int(c.geom2)
            mujoco.mj_contactForce(self._model, data, i, force)
            found.append(
                Contact(
                    self.geom_names[g1],
                    self.geom_names[g2],
                    self.body_names[self.geom_body[g1]],
                    self.body_names[self.geom_body[g2]],
                    float(abs(force[0])),
                    (float(c.pos[0]), float(c.pos[1]), float(c.pos[2])),
                )
            )
        return tuple(found)

    def replay_contacts(self, qpos: np.ndarray, qvel: np.ndarray) -> tuple[Contact, ...]:
        """Contacts of a recorded state (collision detection and constraint forces without actuation)."""
        import mujoco

        data = self.recompute(qpos, qvel)
        data.ctrl[:] = 0.0
        mujoco.mj_forward(self._model, data)
        return self.contacts(data)


class Contact(NamedTuple):
    """One active contact: the two geoms, their bodies, the normal force (N) and the world position."""

    geom1: str
    geom2: str
    body1: str
    body2: str
    force: float
    pos: tuple[float, float, float]

    def involves(self, name: str) -> bool:
        """True when `name` is one of the two geoms or their bodies."""
        return name in (self.geom1, self.geom2, self.body1, self.body2)


class Body:
    """A body's world pose and velocity in one snapshot."""

    __slots__ = ("_state", "_id")

    def __init__(self, state: State, body_id: int) -> None:
        self._state, self._id = state, body_id

    @property
    def pos(self) -> np.ndarray:
        """World position (x, y, z) of the body frame."""
        return self._state._array("xpos")[self._id]

    @property
    def quat(self) -> np.ndarray:
        """World orientation quaternion (w, x, y, z)."""
        return self._state._array("xquat")[self._id]

    @property
    def xmat(self) -> np.ndarray:
        """World rotation matrix (3x3); column 2 is the body's up axis in the world."""
        return self._state._array("xmat")[self._id].reshape(3, 3)

    @property
    def angvel(self) -> np.ndarray:
        """World-frame angular velocity (rad/s)."""
        return self._state._array("cvel")[self._id, :3]

    @property
    def linvel(self) -> np.ndarray:
        """World-frame linear velocity (m/s) of the body frame's origin."""
        s = self._state
        cvel = s._array("cvel")[self._id]
        offset = s._array("xpos")[self._id] - s._array("subtree_com")[s._require_model("linvel").body_root[self._id]]
        ang, lin = cvel[:3], cvel[3:]
        return lin + np.cross(ang, offset)


class Joint:
    """A joint's position and velocity: floats for hinge/slide joints, arrays for free/ball joints."""

    __slots__ = ("qpos", "qvel", "kind")

    def __init__(self, state: State, slot: JointSlot) -> None:
        qpos, qvel = state.qpos[slot.qpos], state.qvel[slot.qvel]
        scalar = slot.kind in ("hinge", "slide")
        self.qpos = float(qpos[0]) if scalar else qpos
        self.qvel = float(qvel[0]) if scalar else qvel
        self.kind = slot.kind


class Site:
    """A site's world position and frame."""

    __slots__ = ("_state", "_id", "pos")

    def __init__(self, state: State, site_id: int) -> None:
        self._state, self._id = state, site_id
        self.pos = state._array("site_xpos")[site_id]

    @property
    def xmat(self) -> np.ndarray:
        """World rotation matrix (3x3) of the site frame."""
        return self._state._array("site_xmat")[self._id].reshape(3, 3)


class State:
    """One read-only snapshot: `obs`, `qpos`, `qvel`, `time`, `dt`, named `body`/`joint`/`site`, `contacts`,
    and `goal`/`achieved_goal` for goal-conditioned envs (None elsewhere).

    Body and site arrays are copied lazily: only the fields some reward has read are captured, once a
    step (`freeze`), so a reward that reads only `obs` pays for no body copies at all.
    """

    goal: np.ndarray | None = None
    achieved_goal: np.ndarray | None = None
    parts: dict[str, np.ndarray] = {}  # replaced per instance; read-only by convention

    def __init__(self, obs, dt: float, schema: StateSchema | None = None, data=None) -> None:
        self.dt = float(dt)
        self._schema = schema
        self._live = data
        self._copies: dict[str, np.ndarray] = {}
        self._contacts: tuple[Contact, ...] | None = None
        self._synced = 0  # 1: kinematics recomputed, 2: also com positions/velocities
        if isinstance(obs, dict):
            obs = self._split(obs)
        if data is None:
            self.obs = _frozen(obs)
            self.qpos = self.qvel = _EMPTY
            self.time = 0.0
            return
        self.time = float(data.time)
        qpos, qvel = data.qpos, data.qvel
        if type(obs) is np.ndarray and obs.ndim == 1 and obs.dtype == np.float64:
            # one copy for the three arrays read every step; slices of a read-only buffer stay read-only
            buffer = np.concatenate((obs, qpos, qvel))
            buffer.flags.writeable = False
            n, nq = obs.shape[0], qpos.shape[0]
            self.obs, self.qpos, self.qvel = buffer[:n], buffer[n : n + nq], buffer[n + nq :]
        else:
            self.obs, self.qpos, self.qvel = _frozen(obs), _frozen(qpos), _frozen(qvel)

    @classmethod
    def from_arrays(
        cls,
        obs: np.ndarray,
        qpos: np.ndarray,
        qvel: np.ndarray,
        dt: float,
        schema: StateSchema | None,
        time: float = 0.0,
    ) -> State:
        """A snapshot rebuilt from recorded arrays (an archived trajectory); body and site fields are
        recomputed from qpos/qvel through `schema.recompute` when first read."""
        state = cls(obs, dt, schema)
        state.qpos, state.qvel, state.time = _frozen(qpos), _frozen(qvel), float(time)
        return state

    def _split(self, obs: dict) -> np.ndarray:
        """A dict observation's parts; returns the flat observation (`observation`, else all parts in key order)."""
        self.parts = {k: _frozen_flat(obs[k]) for k in sorted(obs)}
        self.goal = self.parts.get("desired_goal")
        self.achieved_goal = self.parts.get("achieved_goal")
        flat = self.parts.get("observation")
        return flat if flat is not None else np.concatenate(list(self.parts.values()))

    def _array(self, field: str) -> np.ndarray:
        """A derived MuJoCo array (xpos, cvel, ...), copied the first time it is read.

        After `mj_step`, MuJoCo's derived arrays are one physics substep behind qpos/qvel, so they
        are recomputed from qpos/qvel (kinematics and com velocities only) before the first copy.
        """
        copy = self._copies.get(field)
        if copy is None:
            schema = self._schema
            assert schema is not None, "derived arrays exist only for MuJoCo envs"
            source = self._synced_live(field) if self._live is not None else schema.recompute(self.qpos, self.qvel)
            copy = self._copies[field] = _frozen(getattr(source, field))
            schema.used_fields.add(field)
        return copy

    def _synced_live(self, field: str):
        level = 2 if field in _COM_FIELDS else 1
        if self._synced < level:
            assert self._schema is not None
            self._schema.sync(self._live, with_com=level == 2)
            self._synced = level
        return self._live

    def freeze(self) -> None:
        """Copy every field any reward has read so far; call before the simulator steps again."""
        if self._live is not None:
            schema = self._schema
            if schema is not None and _CONTACTS in schema.used_fields and self._contacts is None:
                self._contacts = schema.contacts(self._live)
            missing = schema.used_fields.difference(self._copies, (_CONTACTS,)) if schema is not None else set()
            if missing:
                for field in sorted(missing, key=lambda f: f not in _COM_FIELDS):
                    self._copies[field] = _frozen(getattr(self._synced_live(field), field))
            self._live = None

    def _require_model(self, what: str) -> StateSchema:
        if self._schema is None:
            raise KeyError(f"this environment has no MuJoCo model: state.{what}() is unavailable; use state.obs")
        return self._schema

    def body(self, name: str) -> Body:
        """Body by name, e.g. `state.body("torso").pos`."""
        schema = self._require_model("body")
        if name not in schema.bodies:
            raise schema.unknown("body", name, schema.bodies)
        return Body(self, schema.bodies[name])

    def joint(self, name: str) -> Joint:
        """Joint by name, e.g. `state.joint("thigh_joint").qpos`."""
        schema = self._require_model("joint")
        if name not in schema.joints:
            raise schema.unknown("joint", name, schema.joints)
        return Joint(self, schema.joints[name])

    def site(self, name: str) -> Site:
        """Site by name, e.g. `state.site("fingertip").pos`."""
        schema = self._require_model("site")
        if name not in schema.sites:
            raise schema.unknown("site", name, schema.sites)
        return Site(self, schema.sites[name])

    def contacts(self) -> tuple[Contact, ...]:
        """Every active contact: `(geom1, geom2, body1, body2, force, pos)` with the normal force in N.

        Taken from the simulator's last physics substep of the step (for a replayed trajectory: recomputed
        from qpos/qvel without actuation, so forces are approximate).
        """
        schema = self._require_model("contacts")
        if self._contacts is None:
            schema.used_fields.add(_CONTACTS)
            live = self._live is not None
            self._contacts = schema.contacts(self._live) if live else schema.replay_contacts(self.qpos, self.qvel)
        return self._contacts

    def contact_force(self, a: str, b: str | None = None) -> float:
        """Total normal contact force (N) between `a` and `b` (geom or body names), or between `a` and anything."""
        schema = self._require_model("contact_force")
        for name in (a, b):
            if name is not None and name not in schema.geoms and name not in schema.bodies:
                raise schema.unknown("geom or body", name, {**schema.bodies, **schema.geoms})
        total = 0.0
        for c in self.contacts():
            pair = ((c.geom1, c.body1), (c.geom2, c.body2))
            for mine, other in (pair, pair[::-1]):
                if a in mine and (b is None or b in other):
                    total += c.force
                    break
        return total

    def touching(self, a: str, b: str | None = None) -> bool:
        """True when `a` touches `b` (geom or body names), or touches anything when `b` is None."""
        if self.contact_force(a, b) > 0.0:
            return True
        return any(c.involves(a) and (b is None or c.involves(b)) for c in self.contacts())

    @cached_property
    def names(self) -> dict[str, list[str]]:
        """Known names: {"bodies": [...], "joints": [...], "sites": [...]}."""
        schema = self._require_model("names")
        return {
            "bodies": list(schema.bodies),
            "joints": list(schema.joints),
            "sites": list(schema.sites),
            "geoms": list(schema.geoms),
        }


def snapshot(env, obs: np.ndarray, schema: StateSchema | None) -> State:
    """Snapshot the unwrapped env after reset/step (one-off; `Snapshotter` for every step of an env)."""
    return Snapshotter(env, schema)(obs)


class Snapshotter:
    """`snapshot` for one env, with its (constant) model, data and control step looked up once."""

    def __init__(self, env, schema: StateSchema | None = None) -> None:
        base = env.unwrapped
        self.schema = schema if schema is not None else schema_for(env)
        self.dt = control_period(env)[0]
        self.data = getattr(base, "data", None) if self.schema is not None else None

    def __call__(self, obs: np.ndarray) -> State:
        return State(obs, self.dt, self.schema, self.data)


def control_period(env) -> tuple[float, str]:
    """The env's control step in seconds and where it comes from; (1.0, "none") when it has no time unit.

    MuJoCo and most classic-control envs have `dt` (CartPole: `tau`); Box2D envs step their world by
    1/FPS, a constant of their module.
    """
    base = env.unwrapped
    for attr in ("dt", "tau"):
        value = getattr(base, attr, None)
        if isinstance(value, int | float) and value > 0:
            return float(value), f"the env's `{attr}`"
    fps = getattr(sys.modules.get(type(base).__module__), "FPS", None)
    if isinstance(fps, int | float) and fps > 0:
        return 1.0 / float(fps), f"the physics step 1/FPS of `{type(base).__module__}`"
    return 1.0, "none"


def schema_for(env) -> StateSchema | None:
    """The name maps of the env's MuJoCo model, or None for a non-MuJoCo env."""
    model = getattr(env.unwrapped, "model", None)
    return StateSchema(model) if model is not None and hasattr(model, "nbody") else None
