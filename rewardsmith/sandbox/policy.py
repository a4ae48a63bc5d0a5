"""The early gate: an AST policy for reward files and a loader with small builtins.

This is NOT the security boundary (the OS layers in `lockdown` are); it rejects obvious attacks
early, with line numbers the designer can feed back to the LLM.
"""

from __future__ import annotations

import ast
import builtins
import math
import sys
import types
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy

from rewardsmith.errors import RewardFileError

ALLOWED_MODULES = frozenset({"numpy", "numpy.linalg", "math"})

FORBIDDEN_NAMES = frozenset(
    {
        "eval",
        "exec",
        "compile",
        "open",
        "getattr",
        "setattr",
        "delattr",
        "hasattr",
        "globals",
        "locals",
        "vars",
        "dir",
        "input",
        "breakpoint",
        "memoryview",
        "type",
        "object",
        "super",
        "classmethod",
        "staticmethod",
        "property",
        "help",
        "exit",
        "quit",
        "print",
        "id",
        "bytearray",
        "__import__",
        "__builtins__",
        "__build_class__",
        "__loader__",
        "__spec__",
    }
)

FORBIDDEN_ATTRIBUTES = frozenset(
    {
        # string formatting walks attributes by name: "{0.__class__}".format(x)
        "format",
        "format_map",
        # frame and code objects reachable from generators, coroutines and tracebacks
        "gi_frame",
        "gi_code",
        "gi_yieldfrom",
        "cr_frame",
        "cr_code",
        "cr_await",
        "ag_frame",
        "ag_code",
        "f_globals",
        "f_locals",
        "f_builtins",
        "f_back",
        "f_code",
        "tb_frame",
        "tb_next",
        # ndarray escape hatches: raw pointers, file and pickle I/O, re-enabling writes
        "ctypes",
        "tofile",
        "dump",
        "dumps",
        "setflags",
        "flags",  # denied whole: `f = x.flags; f["WRITEABLE"] = True` is a write no static check could see
        "base",
        "mro",
        # native pointers and callable native functions: buffers (`arr.data` is a memoryview whose repr
        # is an address), numpy.random's bit generators (`.cffi`, `.ctypes`, `.capsule`), dlpack
        "data",
        "cffi",
        "capsule",
        "bit_generator",
        "byte_bounds",
        # process-wide numpy state
        "seterr",
        "seterrcall",
        "seterrobj",
        "geterrobj",
        "setbufsize",
        "set_string_function",
    }
)
"""`data` is denied on every object: a reward reads observations through `state.obs`, `state.qpos`, ..."""

# numpy names removed from the view: file I/O, raw memory, introspection, test runners
NUMPY_DENIED = frozenset(
    {
        "load",
        "save",
        "savez",
        "savez_compressed",
        "savetxt",
        "loadtxt",
        "genfromtxt",
        "fromfile",
        "fromregex",
        "memmap",
        "DataSource",
        "ctypeslib",
        "lib",
        "testing",
        "f2py",
        "distutils",
        "core",
        "ma",
        "rec",
        "char",
        "strings",
        "typing",
        "dtypes",
        "info",
        "show_config",
        "show_runtime",
        "get_include",
        "test",
        "setbufsize",
        "seterrcall",
        "seterr",
        "seterrobj",
        "set_printoptions",
        "printoptions",
        "frombuffer",
        "from_dlpack",
    }
)
NUMPY_SUBMODULES = ("linalg", "fft", "random", "emath", "polynomial", "exceptions")

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


@dataclass
class Finding:
    """One policy violation: a stable code, a message that says how to fix it, the line."""

    code: str
    message: str
    line: int | None = None

    def __str__(self) -> str:
        where = f"line {self.line}: " if self.line is not None else ""
        return f"{where}{self.code}: {self.message}"


def check_source(source: str, *, function_name: str = "compute_reward", max_bytes: int = 20_000) -> list[Finding]:
    """Return every policy finding in `source` (empty when the file passes the gate)."""
    size = len(source.encode("utf-8", "replace"))
    if size > max_bytes:
        return [Finding("too-large", f"reward file is {size} bytes; the limit is {max_bytes}")]
    try:
        tree = ast.parse(source)
    except SyntaxError as exc:
        return [Finding("syntax-error", f"{exc.msg}; fix the syntax", exc.lineno)]
    findings = _check_signature(tree, function_name)
    for node in ast.walk(tree):
        findings.extend(_check_node(node))
    return sorted(findings, key=lambda f: (f.line or 0, f.code))


def _check_signature(
    tree: ast.Module, function_name: str, params: tuple[str, ...] = ("state", "action", "next_state")
) -> list[Finding]:
    defs = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == function_name]
    names = ", ".join(params)
    if not defs:
        return [Finding("signature", f"define a top-level `def {function_name}({names}):`")]
    args = defs[-1].args
    positional = len(args.posonlyargs) + len(args.args)
    if positional != len(params) or args.vararg or args.kwarg or args.kwonlyargs:
        count = f"exactly {len(params)} positional parameter{'s' if len(params) > 1 else ''}"
        return [Finding("signature", f"`{function_name}` must take {count} ({names})", defs[-1].lineno)]
    return []


def check_progress_signature(source: str) -> list[Finding]:
    """The findings about a module's `progress(state)` (missing, or not one positional parameter); empty when it
    is defined right or the source does not parse (check_source reports that)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    return [
        Finding("progress-" + f.code, f.message + " (the progress strategy is on)", f.line)
        for f in _check_signature(tree, "progress", ("state",))
    ]


def _check_node(node: ast.AST) -> list[Finding]:
    line = getattr(node, "lineno", None)
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return _check_import(node)
    if isinstance(node, ast.Name) and (node.id in FORBIDDEN_NAMES or node.id.startswith("__")):
        return [Finding("forbidden-name", f"`{node.id}` is not available in reward code", line)]
    if isinstance(node, ast.Attribute):
        return _check_attribute(node)
    if isinstance(node, ast.ClassDef):
        return [Finding("class-definition", "classes are not allowed; use functions", line)]
    if isinstance(node, (ast.AsyncFunctionDef, ast.AsyncFor, ast.AsyncWith, ast.Await)):
        return [Finding("async", "async code is not allowed", line)]
    if isinstance(node, (ast.Global, ast.Nonlocal)):
        return [Finding("global-statement", "global/nonlocal are not allowed; return values instead", line)]
    if isinstance(node, ast.Match):
        return [Finding("match-statement", "match statements are not allowed; use if/elif", line)]
    return []


def _check_import(node: ast.Import | ast.ImportFrom) -> list[Finding]:
    line = node.lineno
    if isinstance(node, ast.Import):
        return [
            Finding("forbidden-import", f"import of `{a.name}`; only numpy and math are allowed", line)
            for a in node.names
            if a.name not in ALLOWED_MODULES
        ]
    if node.level or node.module not in ALLOWED_MODULES:
        return [Finding("forbidden-import", f"import from `{node.module}`; only numpy and math are allowed", line)]
    return [
        Finding("forbidden-import", f"`{a.name}` cannot be imported from {node.module}", line)
        for a in node.names
        if a.name == "*" or a.name.startswith("_") or a.name in NUMPY_DENIED
    ]


def _check_attribute(node: ast.Attribute) -> list[Finding]:
    line = node.lineno
    findings = []
    if node.attr.startswith("_"):
        findings.append(
            Finding("dunder-attribute", f"access to `.{node.attr}` is not allowed (no _-prefixed attributes)", line)
        )
    elif node.attr in FORBIDDEN_ATTRIBUTES or node.attr in NUMPY_DENIED:
        findings.append(Finding("forbidden-attribute", f"`.{node.attr}` is not allowed in reward code", line))
    if isinstance(node.ctx, (ast.Store, ast.Del)):
        findings.append(
            Finding(
                "attribute-assignment",
                f"assigning or deleting `.{node.attr}` is not allowed; use local variables",
                line,
            )
        )
    return findings


def load_reward(
    source: str, *, filename: str = "reward.py", gate: bool = True, function_name: str = "compute_reward"
) -> Callable[..., Any]:
    """Execute a reward module and return its `compute_reward`.

    gate=True checks the policy first (RewardFileError listing every finding) and runs the module
    with small builtins and numpy/math views. gate=False is the test-only path (plain exec, full
    builtins) that proves the OS layers hold without the gate.
    """
    return load_functions(source, (function_name,), filename=filename, gate=gate)[function_name]


def load_functions(
    source: str,
    names: tuple[str, ...],
    *,
    optional: tuple[str, ...] = (),
    filename: str = "reward.py",
    gate: bool = True,
) -> dict[str, Callable[..., Any]]:
    """Execute a reward module once (as `load_reward` does) and return its functions `names` (each required,
    else RewardFileError) and those of `optional` it defines; the gate's signature check is for `names[0]`."""
    if gate:
        findings = check_source(source, function_name=names[0])
        if findings:
            raise RewardFileError(f"{filename} breaks the reward policy:\n" + "\n".join(str(f) for f in findings))
        namespace: dict[str, Any] = {"__name__": "reward", "__builtins__": safe_builtins()}
    else:
        namespace = {"__name__": "reward", "__builtins__": builtins}
    try:
        code = compile(source, filename, "exec")
    except SyntaxError as exc:
        raise RewardFileError(f"{filename} line {exc.lineno}: {exc.msg}") from exc
    exec(code, namespace)
    found = {name: namespace.get(name) for name in (*names, *optional)}
    for name in names:
        if not callable(found[name]):
            raise RewardFileError(f"{filename} does not define a callable `{name}`")
    return {name: fn for name, fn in found.items() if callable(fn)}


def safe_builtins() -> dict[str, Any]:
    """A fresh builtins dict: pure functions, common exceptions and the restricted importer."""
    table = {name: getattr(builtins, name) for name in SAFE_BUILTINS}
    table["__import__"] = _restricted_import
    return table


def _restricted_import(
    name: str, globals: Any = None, locals: Any = None, fromlist: tuple[str, ...] = (), level: int = 0
) -> types.ModuleType:
    views = _views()
    if not level and name.startswith("numpy.") and name not in ALLOWED_MODULES and name in sys.modules:
        # numpy's C code imports its own internals lazily (ndarray methods: numpy._core._methods) through
        # the calling frame's __import__, only for the side effect; the gate already rejected any such
        # import statement in the reward, so this is numpy itself, and it gets what it loaded before
        return views["numpy"]
    if level or name not in ALLOWED_MODULES:
        raise ImportError(f"reward code may import only numpy and math, not {name!r}")
    if name == "numpy.linalg" and fromlist:
        return views["numpy"].linalg
    return views[name.split(".")[0]]


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
        lambda: numpy.isclose(x, y).all(),
    )  # fmt: skip
    with warnings.catch_warnings(), numpy.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        for call in calls:
            call()


_VIEW_CACHE: dict[str, types.ModuleType] = {}


def _views() -> dict[str, types.ModuleType]:
    """The numpy and math views, built once per process (workers build them before lock-down)."""
    if not _VIEW_CACHE:
        warm_numpy()
        _VIEW_CACHE["numpy"] = numpy_view()
        _VIEW_CACHE["math"] = _module_view(math, "math", frozenset())
    return _VIEW_CACHE


def numpy_view() -> types.ModuleType:
    """A module exposing numpy's public names minus NUMPY_DENIED, with its safe submodules."""
    view = _module_view(numpy, "numpy", NUMPY_DENIED)
    for sub in NUMPY_SUBMODULES:
        setattr(view, sub, _module_view(getattr(numpy, sub), f"numpy.{sub}", NUMPY_DENIED))
    return view


def _module_view(module: types.ModuleType, name: str, denied: frozenset[str]) -> types.ModuleType:
    view = types.ModuleType(name, f"restricted view of {module.__name__}")
    for attr in dir(module):
        if attr.startswith("_") or attr in denied:
            continue
        try:
            value = getattr(module, attr)
        except AttributeError:  # numpy raises for expired aliases listed by dir()
            continue
        if not isinstance(value, types.ModuleType):
            setattr(view, attr, value)
    return view


def frozen_copy(array: Any) -> numpy.ndarray:
    """A read-only view of a private copy: `setflags(write=True)` on it fails (its base is
    read-only too) and any mutation through `.base` changes only the copy, never the env."""
    copy = numpy.array(array, copy=True)
    copy.flags.writeable = False
    view = copy.view()
    view.flags.writeable = False
    return view


def prepare_gate() -> None:
    """Build the module views and warm numpy up (see `warm_numpy`); call before lock-down."""
    _views()
