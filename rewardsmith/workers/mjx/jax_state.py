"""The State API over JAX arrays, for tracing a candidate's numpy reward into a JAX computation.

`JaxState` mirrors `rewardsmith.reward.state.State` for one MJX env state: `obs`, `qpos`, `qvel`, `time`, `dt`,
`body(name)` (`pos`, `quat`, `xmat`, `linvel`, `angvel`), `joint(name)` (`qpos`, `qvel`), `site(name)` (`pos`,
`xmat`) and `names`. Body and site fields are recomputed from qpos/qvel (kinematics and com velocities), as the
CPU State does. `contacts()`, `contact_force()` and `touching()` are not traceable (they depend on how many
contacts are active) and raise `Untraceable`.

`jax_globals` maps the reward module's numpy and math views to `jax.numpy`, and the builtins `float`, `min`,
`max` to traceable versions, so that plain numpy rewards trace unchanged.
"""

from __future__ import annotations

import contextlib
import functools
import math
import types
from typing import Any

from rewardsmith.errors import Untraceable
from rewardsmith.reward.state import StateSchema

__all__ = ["JaxState", "Untraceable", "jax_globals", "traceable"]

MATH_TO_JNP = {"atan2": "arctan2", "atan": "arctan", "asin": "arcsin", "acos": "arccos", "fabs": "abs", "pow": "power"}
MATH_SAME = [
    "sqrt",
    "exp",
    "expm1",
    "log",
    "log1p",
    "log2",
    "log10",
    "tanh",
    "sinh",
    "cosh",
    "sin",
    "cos",
    "tan",
    "hypot",
    "floor",
    "ceil",
    "isfinite",
    "isnan",
    "isinf",
    "copysign",
    "degrees",
    "radians",
    "trunc",
]


class JaxBody:
    """A body's world pose and velocity (JAX arrays)."""

    def __init__(self, state: JaxState, i: int) -> None:
        self._s, self._i = state, i

    @property
    def pos(self):
        return self._s.data.xpos[self._i]

    @property
    def quat(self):
        return self._s.data.xquat[self._i]

    @property
    def xmat(self):
        return self._s.data.xmat[self._i].reshape(3, 3)

    @property
    def angvel(self):
        return self._s.data.cvel[self._i, :3]

    @property
    def linvel(self):
        import jax.numpy as jnp

        d, schema = self._s.data, self._s.schema
        cvel = d.cvel[self._i]
        offset = d.xpos[self._i] - d.subtree_com[int(schema.body_root[self._i])]
        return cvel[3:] + jnp.cross(cvel[:3], offset)


class JaxJoint:
    """A joint's position and velocity: 0-d arrays for hinge/slide joints, vectors for free/ball joints."""

    def __init__(self, state: JaxState, name: str) -> None:
        slot = state.schema.joints[name]
        scalar = slot.kind in ("hinge", "slide")
        self.kind = slot.kind
        self.qpos = state.qpos[slot.qpos.start] if scalar else state.qpos[slot.qpos]
        self.qvel = state.qvel[slot.qvel.start] if scalar else state.qvel[slot.qvel]


class JaxSite:
    """A site's world position and frame."""

    def __init__(self, state: JaxState, i: int) -> None:
        self.pos = state.data.site_xpos[i]
        self._xmat = state.data.site_xmat[i]

    @property
    def xmat(self):
        return self._xmat.reshape(3, 3)


class JaxState:
    """One env state for a traced reward (see the module docstring)."""

    goal = None
    achieved_goal = None
    parts: dict[str, Any] = {}

    def __init__(self, obs, data, schema: StateSchema, dt: float) -> None:
        self.obs, self.data, self.schema, self.dt = obs, data, schema, float(dt)
        self.qpos, self.qvel, self.time = data.qpos, data.qvel, data.time

    def _lookup(self, what: str, name: str, known: dict) -> int:
        if name not in known:
            raise self.schema.unknown(what, name, known)
        return known[name]

    def body(self, name: str) -> JaxBody:
        """Body by name."""
        return JaxBody(self, self._lookup("body", name, self.schema.bodies))

    def joint(self, name: str) -> JaxJoint:
        """Joint by name."""
        self._lookup("joint", name, self.schema.joints)
        return JaxJoint(self, name)

    def site(self, name: str) -> JaxSite:
        """Site by name."""
        return JaxSite(self, self._lookup("site", name, self.schema.sites))

    def contacts(self):
        raise Untraceable("state.contacts() has a data-dependent length and cannot be traced for the MJX backend")

    def contact_force(self, a: str, b: str | None = None):
        raise Untraceable("state.contact_force() reads the contact list and cannot be traced for the MJX backend")

    def touching(self, a: str, b: str | None = None):
        raise Untraceable("state.touching() reads the contact list and cannot be traced for the MJX backend")

    @functools.cached_property
    def names(self) -> dict[str, list[str]]:
        """Known names, as the CPU State gives them."""
        s = self.schema
        return {"bodies": list(s.bodies), "joints": list(s.joints), "sites": list(s.sites), "geoms": list(s.geoms)}


def _math_view():
    import jax.numpy as jnp

    view = types.SimpleNamespace(pi=math.pi, e=math.e, tau=math.tau, inf=math.inf, nan=math.nan)
    for name in MATH_SAME:
        setattr(view, name, getattr(jnp, name))
    for name, target in MATH_TO_JNP.items():
        setattr(view, name, getattr(jnp, target))
    return view


def _traced_builtins(original: dict) -> dict:
    import jax.numpy as jnp

    def _float(x=0.0):
        return jnp.asarray(x, dtype=jnp.float32)

    def _extreme(pick, builtin):
        def extreme(*args, **kwargs):
            if kwargs:
                return builtin(*args, **kwargs)
            values = list(args[0]) if len(args) == 1 else list(args)
            return functools.reduce(pick, values)

        return extreme

    return {"float": _float, "min": _extreme(jnp.minimum, min), "max": _extreme(jnp.maximum, max)}


def jax_globals(namespace: dict) -> dict[str, Any]:
    """The replacements for a reward module's globals: numpy → jax.numpy, math → jnp functions, and traceable
    `float`/`min`/`max` builtins (applied by `traceable`)."""
    import jax.numpy as jnp
    import numpy

    math_view = _math_view()
    found: dict[str, Any] = {}
    for key, value in namespace.items():
        module = getattr(value, "__name__", None)
        if isinstance(value, types.ModuleType) and module == "numpy":
            found[key] = jnp
        elif isinstance(value, types.ModuleType) and module == "numpy.linalg":
            found[key] = jnp.linalg
        elif isinstance(value, types.ModuleType) and module == "math":
            found[key] = math_view
        elif callable(value) and getattr(numpy, str(module), None) is value:  # from numpy import sqrt
            found[key] = getattr(jnp, str(module), value)
        elif callable(value) and getattr(math, str(module), None) is value:  # from math import tanh
            found[key] = getattr(math_view, str(module), value)
    return found


@contextlib.contextmanager
def traceable(namespace: dict):
    """Within: the reward module's globals and builtins (a function captures its builtins dict when it is
    defined, so that dict is patched in place) mapped as `jax_globals` says; restored on exit."""
    builtins = namespace.get("__builtins__")
    tables = [(namespace, jax_globals(namespace))]
    if isinstance(builtins, dict):
        tables.append((builtins, _traced_builtins(builtins)))
    saved = [(table, {k: table[k] for k in new}) for table, new in tables]
    try:
        for table, new in tables:
            table.update(new)
        yield
    finally:
        for table, old in saved:
            table.update(old)
