"""Whether an example reward's height gates hold at another robot's reset pose, read from the prompt alone.

A shipped example gates some terms on its own robot's height (ant-spin pays the yaw rate only while the torso is
0.2 to 1.0 m high). Carried to another robot whose bodies share the names, the gate can be shut from the start:
Swimmer's torso lies at z = 0, so ant-spin's example would pay nothing but its penalties there. Every comparison
in the example that reads a body's height (`.pos[2]` of a `state.body(...)`, directly or through a variable) against
numbers alone is evaluated at the reset heights the prompt prints ("## Reset pose", "body positions"); the example
fits only if each such comparison holds. The shipped examples' own gates hold at their own reset poses (a test
checks it), so a gate that fails here is one built for another robot's size. The code is never run: its syntax tree
is evaluated on those numbers, and a comparison that reads anything else is left alone.
"""

from __future__ import annotations

import ast
import math
import operator
import re
from typing import Any

RESET_LINE = re.compile(r"^- body positions \(x, y, z\)[^:]*: (.*)$", re.MULTILINE)
BODY_POSITION = re.compile(r"([\w.:/-]+) \(([-\d.e+]+), ([-\d.e+]+), ([-\d.e+]+)\)")
_COMPARE = {
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
}
_BINARY = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv}


class _Unknown(Exception):
    """An expression that reads something other than numbers and reset heights."""


def reset_heights(prompt: str) -> dict[str, float]:
    """Body name -> its z (m) at the reset pose, as the prompt's "body positions" line prints it (empty without)."""
    match = RESET_LINE.search(prompt)
    if match is None:
        return {}
    return {name: float(z) for name, _x, _y, z in BODY_POSITION.findall(match.group(1))}


def shut_gates(code: str, heights: dict[str, float]) -> list[str]:
    """The height comparisons of `code` that are false at `heights` (their source text); empty when every one that
    can be evaluated holds."""
    tree = ast.parse(code)
    numbers = _module_numbers(tree)
    bodies: dict[str, str] = {}  # variable -> the body it holds
    height_of: dict[str, str] = {}  # variable -> the body whose height it holds
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            target, value = node.targets[0].id, node.value
            if (body := _body_call(value)) is not None:
                bodies[target] = body
            elif (body := _height_read(value, bodies)) is not None:
                height_of[target] = body
    shut = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Compare) or not _reads_height(node, bodies, height_of):
            continue
        try:
            values = [_value(n, numbers, bodies, height_of, heights) for n in (node.left, *node.comparators)]
        except _Unknown:
            continue
        pairs = zip(node.ops, values, values[1:])
        if not all(_COMPARE[type(op)](a, b) for op, a, b in pairs if type(op) in _COMPARE):
            shut.append(ast.unparse(node))
    return shut


def _module_numbers(tree: ast.Module) -> dict[str, float]:
    """Module-level `NAME = number` constants."""
    found: dict[str, float] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            try:
                found[node.targets[0].id] = _value(node.value, found, {}, {}, {})
            except _Unknown:
                continue
    return found


def _body_call(node: ast.expr) -> str | None:
    """The name in `state.body("name")` / `next_state.body("name")`."""
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "body"
        and len(node.args) == 1
        and isinstance(node.args[0], ast.Constant)
        and isinstance(node.args[0].value, str)
    ):
        return node.args[0].value
    return None


def _height_read(node: ast.expr, bodies: dict[str, str]) -> str | None:
    """The body whose height `node` reads: `X.pos[2]` (X a body call or a variable holding one), or `float()` of it."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "float" and node.args:
        return _height_read(node.args[0], bodies)
    if (
        isinstance(node, ast.Subscript)
        and isinstance(node.value, ast.Attribute)
        and node.value.attr == "pos"
        and isinstance(node.slice, ast.Constant)
        and node.slice.value == 2
    ):
        owner = node.value.value
        if isinstance(owner, ast.Name):
            return bodies.get(owner.id)
        return _body_call(owner)
    return None


def _reads_height(node: ast.AST, bodies: dict[str, str], height_of: dict[str, str]) -> bool:
    return any(
        (isinstance(n, ast.Name) and n.id in height_of) or (isinstance(n, ast.expr) and _height_read(n, bodies))
        for n in ast.walk(node)
    )


def _value(
    node: ast.expr,
    numbers: dict[str, float],
    bodies: dict[str, str],
    height_of: dict[str, str],
    heights: dict[str, float],
) -> float:
    """`node` evaluated on numbers, module constants and reset heights; `_Unknown` for anything else."""
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
        return float(node.value)
    if isinstance(node, ast.Name):
        if node.id in numbers:
            return numbers[node.id]
        if node.id in height_of and height_of[node.id] in heights:
            return heights[height_of[node.id]]
        raise _Unknown
    if (body := _height_read(node, bodies)) is not None:
        if body in heights:
            return heights[body]
        raise _Unknown
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_value(node.operand, numbers, bodies, height_of, heights)
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left = _value(node.left, numbers, bodies, height_of, heights)
        right = _value(node.right, numbers, bodies, height_of, heights)
        try:
            return float(_BINARY[type(node.op)](left, right))
        except ZeroDivisionError as exc:
            raise _Unknown from exc
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == "math"
        and node.func.attr in ("cos", "sin", "sqrt")
        and len(node.args) == 1
    ):
        try:
            return float(getattr(math, node.func.attr)(_value(node.args[0], numbers, bodies, height_of, heights)))
        except ValueError as exc:  # math domain error
            raise _Unknown from exc
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "float" and node.args:
        return _value(node.args[0], numbers, bodies, height_of, heights)
    raise _Unknown


def fits(code: str, names: dict[str, Any]) -> bool:
    """Whether every height gate of `code` holds at the reset heights in `names["reset_z"]` (True without them)."""
    heights = names.get("reset_z") or {}
    return not heights or not shut_gates(code, heights)
