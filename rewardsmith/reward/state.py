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
from functools import cached_property

import numpy as np

from rewardsmith.reward.schema import COM_FIELDS, CONTACTS_FIELD, JOINT_TYPE_NAMES, Contact, JointSlot, StateSchema
from rewardsmith.sandbox.policy import frozen_copy

__all__ = [
    "JOINT_TYPE_NAMES",
    "Body",
    "Contact",
    "Joint",
    "JointSlot",
    "Site",
    "State",
    "StateSchema",
    "Snapshotter",
    "control_period",
    "schema_for",
    "snapshot",
]


def _frozen(array: np.ndarray) -> np.ndarray:
    """A read-only float64 view of a private copy (as `policy.frozen_copy`: setflags(write=True) on it fails)."""
    if type(array) is np.ndarray and array.dtype.kind == "f":  # the hot path: MuJoCo, Box2D and env arrays
        copy = array.astype(np.float64)  # always a fresh copy, float32 converted on the way
        copy.setflags(write=False)
        return copy[...]  # a view of a read-only base
    return frozen_copy(np.asarray(array, dtype=np.float64))


def _frozen_flat(array) -> np.ndarray:
    """`_frozen`, flattened to 1-D (a dict observation's part)."""
    copy = np.asarray(array, dtype=np.float64).flatten()  # flatten always copies: the base is private
    copy.flags.writeable = False
    return copy[...]


_EMPTY = _frozen(np.zeros(0))  # qpos/qvel of an env without a MuJoCo model, shared: read-only and empty


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
    qpos: float | np.ndarray
    qvel: float | np.ndarray

    def __init__(self, state: State, slot: JointSlot) -> None:
        if slot.scalar:
            self.qpos, self.qvel = float(state.qpos[slot.qpos.start]), float(state.qvel[slot.qvel.start])
        else:
            self.qpos, self.qvel = state.qpos[slot.qpos], state.qvel[slot.qvel]
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
    _contacts: tuple[Contact, ...] | None = None
    _synced = 0  # 1: kinematics recomputed on the live data, 2: also com positions/velocities

    def __init__(self, obs, dt: float, schema: StateSchema | None = None, data=None) -> None:
        self.dt = float(dt)
        self._schema = schema
        self._live = data
        self._copies: dict[str, np.ndarray] = {}
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
            self._share(obs, qpos, qvel)
        else:
            self.obs, self.qpos, self.qvel = _frozen(obs), _frozen(qpos), _frozen(qvel)

    def _share(self, obs: np.ndarray, qpos: np.ndarray, qvel: np.ndarray) -> None:
        """obs, qpos and qvel as slices of one private read-only copy (the three arrays read every step)."""
        buffer = np.concatenate((obs, qpos, qvel))
        buffer.setflags(write=False)  # slices of a read-only buffer stay read-only
        n, nq = obs.shape[0], qpos.shape[0]
        self.obs, self.qpos, self.qvel = buffer[:n], buffer[n : n + nq], buffer[n + nq :]

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
        level = 2 if field in COM_FIELDS else 1
        if self._synced < level:
            assert self._schema is not None
            self._schema.sync(self._live, with_com=level == 2)
            self._synced = level
        return self._live

    def freeze(self) -> None:
        """Copy every field any reward has read so far; call before the simulator steps again."""
        if self._live is None:
            return
        schema = self._schema
        if schema is not None:
            used = schema.used_fields
            contacts = CONTACTS_FIELD in used
            if contacts and self._contacts is None:
                self._contacts = schema.contacts(self._live)
            if len(self._copies) < len(used) - contacts:  # every copy is of a used field: some are missing
                missing = used.difference(self._copies, (CONTACTS_FIELD,))
                for field in sorted(missing, key=lambda f: f not in COM_FIELDS):
                    self._copies[field] = _frozen(getattr(self._synced_live(field), field))
        self._live = None

    def _require_model(self, what: str) -> StateSchema:
        if self._schema is None:
            raise KeyError(f"this environment has no MuJoCo model: state.{what}() is unavailable; use state.obs")
        return self._schema

    def body(self, name: str) -> Body:
        """Body by name, e.g. `state.body("torso").pos`."""
        schema = self._schema or self._require_model("body")
        index = schema.bodies.get(name)
        if index is None:
            raise schema.unknown("body", name, schema.bodies)
        return Body(self, index)

    def joint(self, name: str) -> Joint:
        """Joint by name, e.g. `state.joint("thigh_joint").qpos`."""
        schema = self._schema or self._require_model("joint")
        slot = schema.joints.get(name)
        if slot is None:
            raise schema.unknown("joint", name, schema.joints)
        return Joint(self, slot)

    def site(self, name: str) -> Site:
        """Site by name, e.g. `state.site("fingertip").pos`."""
        schema = self._schema or self._require_model("site")
        index = schema.sites.get(name)
        if index is None:
            raise schema.unknown("site", name, schema.sites)
        return Site(self, index)

    def contacts(self) -> tuple[Contact, ...]:
        """Every active contact: `(geom1, geom2, body1, body2, force, pos)` with the normal force in N.

        Taken from the simulator's last physics substep of the step (for a replayed trajectory: recomputed
        from qpos/qvel without actuation, so forces are approximate).
        """
        schema = self._require_model("contacts")
        if self._contacts is None:
            schema.used_fields.add(CONTACTS_FIELD)
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


_new_state = object.__new__


def snapshot(env, obs: np.ndarray, schema: StateSchema | None) -> State:
    """Snapshot the unwrapped env after reset/step (one-off; `Snapshotter` for every step of an env)."""
    return Snapshotter(env, schema)(obs)


class Snapshotter:
    """`snapshot` for one env, with its (constant) model, data and control step looked up once.

    For the common case (a MuJoCo env with a flat float64 observation) it also copies, at each snapshot, every
    derived field a reward has read so far (`used_fields`: the fields `freeze` would copy anyway), with the
    observation, qpos and qvel in one private read-only buffer, after one kinematics sync."""

    def __init__(self, env, schema: StateSchema | None = None) -> None:
        base = env.unwrapped
        self.schema = schema if schema is not None else schema_for(env)
        self.dt = control_period(env)[0]
        self.data = getattr(base, "data", None) if self.schema is not None else None
        # the MjData's arrays, viewed once (each read of data.qpos makes a new view): its buffers are fixed
        self._sources: tuple[np.ndarray, ...] = ()
        self._plan: tuple[tuple[str, int, int, tuple[int, ...]], ...] = ()  # (field, start, end, shape) after qvel
        self._planned = 0  # the size of `used_fields` the plan was made for (it only grows)
        self._com = False
        self._qpos_end = self._qvel_end = 0
        self._live_schema = self.schema if self.data is not None else None  # the schema of the fast path
        if self._live_schema is not None:
            self._make_plan(self._live_schema, self.data)

    def __call__(self, obs: np.ndarray) -> State:
        schema, data = self._live_schema, self.data
        if schema is None or data is None or type(obs) is not np.ndarray or obs.ndim != 1 or obs.dtype != np.float64:
            return State(obs, self.dt, self.schema, data)
        if len(schema.used_fields) != self._planned:
            self._make_plan(schema, data)
        state = _new_state(State)  # as __init__ would make it
        state.dt, state._schema, state._live, state.time = self.dt, schema, data, float(data.time)
        plan = self._plan
        if plan:
            schema.sync(data, with_com=self._com)
            state._synced = 2 if self._com else 1
        buffer = np.concatenate((obs, *self._sources))
        buffer.setflags(write=False)  # slices of a read-only buffer stay read-only
        n = obs.shape[0]
        nq, nv = self._qpos_end + n, self._qvel_end + n
        state.obs, state.qpos, state.qvel = buffer[:n], buffer[n:nq], buffer[nq:nv]
        state._copies = {field: buffer[n + a : n + b].reshape(shape) for field, a, b, shape in plan} if plan else {}
        return state

    def _make_plan(self, schema: StateSchema, data) -> None:
        """Which derived fields each snapshot copies: the used ones that are float64 arrays of the MjData."""
        sources, plan = [data.qpos, data.qvel], []
        self._qpos_end = sources[0].shape[0]
        offset = self._qvel_end = self._qpos_end + sources[1].shape[0]
        for field in sorted(schema.used_fields):
            live = getattr(data, field, None)
            if type(live) is np.ndarray and live.dtype == np.float64 and live.flags.c_contiguous:
                sources.append(live.reshape(-1))  # a view of the MjData's buffer
                plan.append((field, offset, offset + live.size, live.shape))
                offset += live.size
        self._sources, self._plan = tuple(sources), tuple(plan)
        self._com = any(field in COM_FIELDS for field, *_ in plan)
        self._planned = len(schema.used_fields)


def physics_env(base):
    """The MuJoCo env that holds `base`'s state and computes its observation: `base` itself, or the MuJoCo env it
    wraps around the same model (PointMaze's `point_env`, AntMaze's `ant_env`); None if neither has a state to set."""
    model = getattr(base, "model", None)
    if model is None:
        return None

    def holds_state(env) -> bool:
        return getattr(env, "model", None) is model and hasattr(env, "set_state") and hasattr(env, "init_qpos")

    return base if holds_state(base) else next((v for v in vars(base).values() if holds_state(v)), None)


def control_period(env) -> tuple[float, str]:
    """The env's control step in seconds and where it comes from; (1.0, "none") when it has no time unit.

    MuJoCo and most classic-control envs have `dt` (CartPole: `tau`); Box2D envs step their world by
    1/FPS, a constant of their module.
    """
    base = env.unwrapped
    base = physics_env(base) or base  # a maze env keeps its control step on the MuJoCo env it wraps
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
