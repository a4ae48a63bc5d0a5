"""What gated reward code runs against: small builtins, a restricted importer, and allowlisted module views.

The views are built once per process, before lock-down (`prepare_views`), after numpy has loaded the lazy
internals of the common calls (`warm_numpy`). Each view holds only the names of `allowlist`; `np.ndarray` is a
stand-in type that answers `isinstance` and refuses to be called.
"""

from __future__ import annotations
import __future__

import builtins
import math
import sys
import types
import typing
import warnings
from typing import Any

import numpy

from rewardsmith.sandbox.allowlist import (
    ALLOWED_MODULES,
    FUTURE_NAMES,
    GUARDED_TYPES,
    NUMPY_NAMES,
    SUBMODULE_NAMES,
    TYPING_NAMES,
)

SAFE_BUILTINS = (
    "abs",
    "all",
    "any",
    "bool",
    "complex",
    "dict",
    "divmod",
    "enumerate",
    "filter",
    "float",
    "frozenset",
    "hasattr",  # the gate allows it only as `hasattr(x, "literal")` with a name that passes the attribute rules
    "int",
    "isinstance",
    "len",
    "list",
    "map",
    "max",
    "min",
    "pow",
    "range",
    "reversed",
    "round",
    "set",
    "slice",
    "sorted",
    "str",
    "sum",
    "tuple",
    "zip",
    "ArithmeticError",
    "AssertionError",
    "Exception",
    "FloatingPointError",
    "IndexError",
    "KeyError",
    "OverflowError",
    "RuntimeError",
    "StopIteration",
    "TypeError",
    "ValueError",
    "ZeroDivisionError",
    "NotImplementedError",
)


class _IsInstanceOnly(type):
    """Metaclass of the stand-ins: `isinstance(x, np.ndarray)` asks the real type; calling one raises."""

    _real: type
    _hint: str

    def __instancecheck__(cls, obj: object) -> bool:
        return isinstance(obj, cls._real)

    def __subclasscheck__(cls, sub: type) -> bool:
        return issubclass(sub, cls._real)

    def __call__(cls, *args: object, **kwargs: object) -> typing.NoReturn:
        raise TypeError(cls._hint)

    def __repr__(cls) -> str:
        return f"<class '{cls._real.__module__}.{cls._real.__name__}' (isinstance checks only)>"


def stand_in(real: type, name: str) -> type:
    """A type for `isinstance`/`issubclass` checks and annotations (`np.ndarray[...]`) that cannot be called."""
    hint = f"{name}(...) builds arrays over raw buffers and is not available in reward code; use np.array, np.zeros"
    return _IsInstanceOnly(
        real.__name__, (), {"_real": real, "_hint": hint, "__class_getitem__": classmethod(lambda cls, _: cls)}
    )


def safe_builtins() -> dict[str, Any]:
    """A fresh builtins dict: pure functions, common exceptions and the restricted importer."""
    table = {name: getattr(builtins, name) for name in SAFE_BUILTINS}
    table["__import__"] = _restricted_import
    return table


def _restricted_import(
    name: str, globals: Any = None, locals: Any = None, fromlist: tuple[str, ...] = (), level: int = 0
) -> types.ModuleType:
    views = module_views()
    if not level and name.startswith("numpy.") and name not in ALLOWED_MODULES and name in sys.modules:
        # numpy's C code imports its own internals lazily (ndarray methods: numpy._core._methods) through
        # the calling frame's __import__, only for the side effect; the gate already rejected any such
        # import statement in the reward, so this is numpy itself, and it gets what it loaded before
        return views["numpy"]
    if not level and name == "__future__":
        return views["__future__"]
    if level or name not in ALLOWED_MODULES:
        raise ImportError(f"reward code may import only numpy and math, not {name!r}")
    top, _, sub = name.partition(".")
    return getattr(views[top], sub) if sub and fromlist else views[top]


def warm_numpy() -> None:
    """Run the common ndarray methods, ufuncs and linalg calls once, before any gated code: numpy imports
    the modules behind them lazily (and caches them in C), which must not happen through the restricted
    `__import__` or after lock-down."""
    x, y = numpy.arange(6.0).reshape(2, 3), numpy.ones(3)
    calls = (
        x.sum, x.mean, x.max, x.min, x.std, x.var, x.prod, x.argmax, x.argmin, x.any, x.all, x.cumsum,
        x.copy, x.ravel, x.flatten, x.squeeze, x.tolist, x.trace, x.diagonal, x.argsort, x.nonzero,
        lambda: x.dot(y), lambda: x @ y, lambda: x.clip(0, 1), lambda: x.astype(numpy.float32),
        lambda: x.reshape(-1), lambda: x.round(2), lambda: x.item(0), lambda: str(x), lambda: repr(x),
        lambda: f"{x.sum():.3f}", lambda: x / 0, lambda: numpy.sqrt(-x), lambda: numpy.float64(1.0) / 0,
        lambda: numpy.ptp(x), lambda: numpy.median(x), lambda: numpy.percentile(x, 50),
        lambda: numpy.average(x, weights=x), lambda: numpy.linalg.norm(x), lambda: numpy.linalg.inv(numpy.eye(2)),
        lambda: numpy.linalg.det(numpy.eye(2)), lambda: numpy.linalg.solve(numpy.eye(2), numpy.ones(2)),
        lambda: numpy.interp(1.0, [0, 2], [0, 1]), lambda: numpy.random.default_rng(0).normal(),
        lambda: numpy.isclose(x, y).all(), lambda: numpy.finfo(numpy.float64).eps,
        lambda: str.format("{:.2f} {}", x.sum(), x),
    )  # fmt: skip
    with warnings.catch_warnings(), numpy.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        for call in calls:
            call()


_VIEW_CACHE: dict[str, types.ModuleType] = {}


def module_views() -> dict[str, types.ModuleType]:
    """The numpy, math, typing and `__future__` views, built once per process (workers build them before
    lock-down)."""
    if not _VIEW_CACHE:
        warm_numpy()
        _VIEW_CACHE["numpy"] = numpy_view()
        _VIEW_CACHE["math"] = module_view(math, "math", frozenset(n for n in dir(math) if not n.startswith("_")))
        _VIEW_CACHE["typing"] = module_view(typing, "typing", TYPING_NAMES)
        _VIEW_CACHE["__future__"] = module_view(__future__, "__future__", FUTURE_NAMES)
    return _VIEW_CACHE


def numpy_view() -> types.ModuleType:
    """A module holding only numpy's allowlisted names (`allowlist.NUMPY_NAMES`), the stand-in `ndarray`, and
    the allowlisted `linalg`, `random` and `typing` submodules."""
    view = module_view(numpy, "numpy", NUMPY_NAMES - GUARDED_TYPES)
    for name in GUARDED_TYPES:
        setattr(view, name, stand_in(getattr(numpy, name), f"np.{name}"))
    for sub in ("linalg", "random"):
        setattr(view, sub, module_view(getattr(numpy, sub), f"numpy.{sub}", SUBMODULE_NAMES[sub]))
    hints = types.ModuleType("numpy.typing", "restricted view of numpy.typing")
    hints.NDArray, hints.ArrayLike, hints.DTypeLike = stand_in(numpy.ndarray, "NDArray"), typing.Any, typing.Any  # type: ignore[attr-defined]
    view.typing = hints  # type: ignore[attr-defined]
    return view


def module_view(module: types.ModuleType, name: str, allowed: frozenset[str]) -> types.ModuleType:
    """A fresh module holding `allowed` names of `module` (those it has; modules among them are left out)."""
    view = types.ModuleType(name, f"restricted view of {module.__name__}")
    for attr in sorted(allowed):
        try:
            value = getattr(module, attr)
        except AttributeError:  # a name this numpy does not have (or an expired alias)
            continue
        if not isinstance(value, types.ModuleType):
            setattr(view, attr, value)
    return view
