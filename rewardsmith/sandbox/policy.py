"""The gate: an AST policy for reward files, and the loader that runs them with small builtins and module views.

The gate is one layer of several (the threat model is in the `sandbox` package docstring): it promises that
code it passes can name only allowlisted modules, builtins and attributes, so it cannot reach raw memory,
native pointers, frames, files or the import system from Python. Its findings carry a line and a repair
hint, fed back to the LLM.
"""

from __future__ import annotations

import ast
import builtins
import math
import string
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy

from rewardsmith.errors import RewardFileError
from rewardsmith.sandbox.allowlist import (
    ALLOWED_MODULES,
    DENIED_NUMPY_ATTRIBUTES,
    FORBIDDEN_ATTRIBUTES,
    FUTURE_NAMES,
    GUARDED_TYPES,
    MEMORY_HINTS,
    NUMPY_NAMES,
    SUBMODULE_NAMES,
    TYPING_NAMES,
    words,
)
from rewardsmith.sandbox.views import module_views, safe_builtins

FORBIDDEN_NAMES = frozenset(
    words("""
    eval exec compile open getattr setattr delattr globals locals vars dir input breakpoint memoryview type object
    super classmethod staticmethod property help exit quit print id bytearray __import__ __builtins__
    __build_class__ __loader__ __spec__
    """)
)
"""Denied as names; `hasattr` is allowed only as `hasattr(x, "literal")` (see `_hasattr_calls`)."""

IMPORTABLE = {
    "numpy": NUMPY_NAMES | frozenset(SUBMODULE_NAMES),
    **{f"numpy.{sub}": names for sub, names in SUBMODULE_NAMES.items()},
    "typing": TYPING_NAMES,
    "math": frozenset(n for n in dir(math) if not n.startswith("_")),
    "__future__": FUTURE_NAMES,
}
"""What `from M import name` may import, per module M."""
NUMPY_HELP = "numpy math on arrays (np.asarray, np.clip, np.exp, .sum(), .mean(), np.linalg.norm, ...)"


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
    scope = _Scope(_module_aliases(tree))
    findings += _hasattr_calls(tree, scope)
    for node in ast.walk(tree):
        findings.extend(_check_node(node, scope))
    return sorted(findings, key=lambda f: (f.line or 0, f.code))


@dataclass
class _Scope:
    """What the walk knows beyond one node: names bound to allowed modules, and the `hasattr` names that are
    the callee of a well-formed call."""

    module_aliases: dict[str, str]
    hasattr_callees: set[int] = field(default_factory=set)


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


def _check_node(node: ast.AST, scope: _Scope) -> list[Finding]:
    line = getattr(node, "lineno", None)
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return _check_import(node)
    if isinstance(node, ast.Name):
        forbidden = node.id in FORBIDDEN_NAMES or node.id.startswith("__")
        if forbidden or (node.id == "hasattr" and id(node) not in scope.hasattr_callees):
            return [Finding("forbidden-name", f"`{node.id}` is not available in reward code", line)]
    if isinstance(node, ast.Attribute):
        return _check_attribute(node, scope)
    if isinstance(node, ast.Call):
        return _check_call(node, scope)
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
    allowed = "only numpy (numpy.linalg, numpy.random, numpy.typing), math and typing are allowed"
    if isinstance(node, ast.Import):
        return [
            Finding("forbidden-import", f"import of `{a.name}`; {allowed}", line)
            for a in node.names
            if a.name not in ALLOWED_MODULES
        ]
    module = node.module or ""
    if node.level or module not in IMPORTABLE:
        return [Finding("forbidden-import", f"import from `{module or '.'}`; {allowed}", line)]
    return [
        Finding("forbidden-import", f"`{a.name}` cannot be imported from {module}{_hint(a.name)}", line)
        for a in node.names
        if a.name not in IMPORTABLE[module]
    ]


def _hint(name: str) -> str:
    return f"; {MEMORY_HINTS[name]}" if name in MEMORY_HINTS else ""


def _module_aliases(tree: ast.Module) -> dict[str, str]:
    """Local name -> module path, for every import that binds an allowed module (`np` -> "numpy", `t` ->
    "typing") or numpy's `ndarray`."""
    aliases = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name in ALLOWED_MODULES:
                    top = a.name.split(".")[0]
                    aliases[a.asname or top] = a.name if a.asname else top
        elif isinstance(node, ast.ImportFrom) and node.module == "numpy" and not node.level:
            for a in node.names:
                if a.name in SUBMODULE_NAMES or a.name in GUARDED_TYPES:
                    aliases[a.asname or a.name] = f"numpy.{a.name}"
    return aliases


def _module_of(node: ast.expr, scope: _Scope) -> str | None:
    """The module path an expression names (`np`, `np.linalg`, `typing`), else None."""
    if isinstance(node, ast.Name):
        return scope.module_aliases.get(node.id)
    if isinstance(node, ast.Attribute) and _module_of(node.value, scope) == "numpy":
        return f"numpy.{node.attr}" if node.attr in SUBMODULE_NAMES else None
    return None


def _check_attribute(node: ast.Attribute, scope: _Scope) -> list[Finding]:
    findings = [Finding(code, message, node.lineno) for code, message in _attribute_problems(node, scope)]
    if isinstance(node.ctx, (ast.Store, ast.Del)):
        message = f"assigning or deleting `.{node.attr}` is not allowed; use local variables"
        findings.append(Finding("attribute-assignment", message, node.lineno))
    return findings


def _attribute_problems(node: ast.Attribute, scope: _Scope) -> list[tuple[str, str]]:
    name = node.attr
    if name == "format" and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
        problem = _format_problem(node.value.value)
        return [("forbidden-attribute", problem)] if problem else []
    module = _module_of(node.value, scope)
    if module is not None and not name.startswith("_") and name not in IMPORTABLE.get(module, frozenset()):
        if module.startswith("numpy"):
            hint = _hint(name) or "; use " + NUMPY_HELP
            return [
                ("numpy-name", f"`{module.replace('numpy', 'np', 1)}.{name}` is not available in reward code{hint}")
            ]
        return [
            (
                "module-name",
                f"`{module}.{name}` is not available in reward code; use {', '.join(sorted(IMPORTABLE[module])[:8])}, ...",
            )
        ]
    return name_problems(name)


def name_problems(name: str) -> list[tuple[str, str]]:
    """(code, message) for an attribute name that reward code may not use on any object; empty when allowed."""
    if name.startswith("_"):
        return [("dunder-attribute", f"access to `.{name}` is not allowed (no _-prefixed attributes)")]
    if name == "format":
        return [("forbidden-attribute", "`.format` is allowed only on a string literal; use an f-string")]
    if name in FORBIDDEN_ATTRIBUTES:
        return [("forbidden-attribute", f"`.{name}` is not allowed in reward code")]
    if name in MEMORY_HINTS and name in DENIED_NUMPY_ATTRIBUTES:
        return [("numpy-memory", f"`.{name}` reaches raw memory and is not allowed; {MEMORY_HINTS[name]}")]
    if name in DENIED_NUMPY_ATTRIBUTES:
        return [("numpy-attribute", f"`.{name}` is not on the reward code's numpy allowlist; use {NUMPY_HELP}")]
    return []


def _format_problem(template: str) -> str | None:
    """Why `template.format(...)` is unsafe (a field with attribute or index access), or None when it is fine."""
    try:
        parsed = list(string.Formatter().parse(template))
    except ValueError as exc:
        return f"malformed format string ({exc}); use an f-string"
    for _, field_name, spec, _ in parsed:
        if field_name is not None and not (field_name == "" or field_name.isidentifier() or field_name.isdigit()):
            return f"format field `{{{field_name}}}` reads attributes or items; use an f-string"
        nested = _format_problem(spec) if spec else None
        if nested:
            return nested
    return None


def _hasattr_calls(tree: ast.Module, scope: _Scope) -> list[Finding]:
    """Allow `hasattr(x, "name")` whose name passes the attribute rules (it returns a bool, but runs the same
    attribute lookup as `x.name`); record the callees of well-formed calls in `scope`."""
    findings = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "hasattr"):
            continue
        name = node.args[1] if len(node.args) == 2 and not node.keywords else None
        scope.hasattr_callees.add(id(node.func))  # reported below, or well-formed
        if not (isinstance(name, ast.Constant) and isinstance(name.value, str)):
            message = 'hasattr takes an object and a string literal: `hasattr(state, "goal")`'
            findings.append(Finding("forbidden-name", message, node.lineno))
            continue
        for code, message in name_problems(name.value):
            findings.append(Finding(code, f"hasattr: {message}", node.lineno))
    return findings


def _check_call(node: ast.Call, scope: _Scope) -> list[Finding]:
    """Calls that build arrays over raw memory: `np.ndarray(...)` (a stand-in for `isinstance` at run time),
    any `buffer=`/`strides=` argument, and structured dtypes written as literals (`dtype=[("a", "f8")]`,
    `.astype({...})`): fields at byte offsets."""
    func = node.func
    named = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    module = _module_of(func.value, scope) if isinstance(func, ast.Attribute) else None
    imported = isinstance(func, ast.Name) and scope.module_aliases.get(named, "").removeprefix("numpy.")
    if (named in GUARDED_TYPES and module == "numpy") or imported in GUARDED_TYPES:
        message = "`np.ndarray(...)` builds an array over a raw buffer; use np.array, np.zeros or np.full (np.ndarray is for isinstance only)"
        return [Finding("numpy-memory", message, node.lineno)]
    raw = [k.arg for k in node.keywords if k.arg in ("buffer", "strides")]
    if raw:
        message = f"`{raw[0]}=` builds an array over raw memory; use np.array, np.zeros or np.full"
        return [Finding("numpy-memory", message, node.lineno)]
    values = [k.value for k in node.keywords if k.arg == "dtype"]
    if isinstance(node.func, ast.Attribute) and node.func.attr == "astype" and node.args:
        values.append(node.args[0])
    if any(isinstance(v, (ast.List, ast.Tuple, ast.Dict, ast.Set)) for v in values):
        message = "structured dtypes are not allowed; use a scalar type such as `dtype=np.float64`"
        return [Finding("structured-dtype", message, node.lineno)]
    return []


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


def frozen_copy(array: Any) -> numpy.ndarray:
    """A read-only view of a private copy: `setflags(write=True)` on it fails (its base is
    read-only too) and any mutation through `.base` changes only the copy, never the env."""
    copy = numpy.array(array, copy=True)
    copy.flags.writeable = False
    view = copy.view()
    view.flags.writeable = False
    return view


def prepare_gate() -> None:
    """Build the module views and warm numpy up (see `views.warm_numpy`); call before lock-down."""
    module_views()
