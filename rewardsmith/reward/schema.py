"""`StateSchema`: the name-to-index maps of one MuJoCo model (bodies, joints, sites, geoms), built once per env, and
the contacts of an MjData by name (`Contact`); what `State` resolves its named lookups through."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

_FREE, _BALL, _SLIDE, _HINGE = 0, 1, 2, 3
_QPOS_SIZE = {_FREE: 7, _BALL: 4, _SLIDE: 1, _HINGE: 1}
_QVEL_SIZE = {_FREE: 6, _BALL: 3, _SLIDE: 1, _HINGE: 1}
COM_FIELDS = frozenset({"cvel", "subtree_com"})
CONTACTS_FIELD = "contacts"  # a pseudo-field in `used_fields`: some reward read the contacts
JOINT_TYPE_NAMES = {_FREE: "free", _BALL: "ball", _SLIDE: "slide", _HINGE: "hinge"}


@dataclass(frozen=True)
class JointSlot:
    """Where a joint lives in qpos/qvel."""

    name: str
    kind: str
    qpos: slice
    qvel: slice
    scalar: bool = False
    """A hinge or slide joint: one qpos and one qvel entry, read as floats."""


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
        self._kinematics, self._com_pos, self._com_vel = mujoco.mj_kinematics, mujoco.mj_comPos, mujoco.mj_comVel
        self._scratch = None
        self.joints: dict[str, JointSlot] = {}
        for j, name in enumerate(names(mujoco.mjtObj.mjOBJ_JOINT, model.njnt)):
            kind = int(model.jnt_type[j])
            qa, va = int(model.jnt_qposadr[j]), int(model.jnt_dofadr[j])
            qpos, qvel = slice(qa, qa + _QPOS_SIZE[kind]), slice(va, va + _QVEL_SIZE[kind])
            self.joints[name] = JointSlot(name, JOINT_TYPE_NAMES[kind], qpos, qvel, kind in (_SLIDE, _HINGE))

    def sync(self, data, with_com: bool = True) -> None:
        """Recompute positions (and com velocities) from data.qpos/qvel; MuJoCo leaves them a substep stale."""
        self._kinematics(self._model, data)
        if with_com:
            self._com_pos(self._model, data)
            self._com_vel(self._model, data)

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
