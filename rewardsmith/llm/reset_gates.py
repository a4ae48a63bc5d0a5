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
    reads = _Reads(tree)
    shut = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Compare) or not reads.reads_height(node):
            continue
        try:
            values = [reads.value(n, heights) for n in (node.left, *node.comparators)]
        except _Unknown:
            continue
        pairs = zip(node.ops, values, values[1:])
        if not all(_COMPARE[type(op)](a, b) for op, a, b in pairs if type(op) in _COMPARE):
            shut.append(ast.unparse(node))
    return shut


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


class _Reads:
    """What an example's names hold: module-level number constants, variables holding a body, variables holding a
    body's height (each `NAME = ...` assignment, in the order a syntax-tree walk meets them)."""

    def __init__(self, tree: ast.Module) -> None:
        self.numbers: dict[str, float] = {}
        self.bodies: dict[str, str] = {}  # variable -> the body it holds
        self.height_of: dict[str, str] = {}  # variable -> the body whose height it holds
        for node in tree.body:
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                try:
                    self.numbers[node.targets[0].id] = self.value(node.value, {})
                except _Unknown:
                    continue
        for found in ast.walk(tree):
            if isinstance(found, ast.Assign) and len(found.targets) == 1 and isinstance(found.targets[0], ast.Name):
                target, value = found.targets[0].id, found.value
                if (body := _body_call(value)) is not None:
                    self.bodies[target] = body
                elif (body := self.height_read(value)) is not None:
                    self.height_of[target] = body

    def height_read(self, node: ast.expr) -> str | None:
        """The body whose height `node` reads: `X.pos[2]` (X a body call or a variable holding one), or `float()` of
        it."""
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "float" and node.args:
            return self.height_read(node.args[0])
        if (
            isinstance(node, ast.Subscript)
            and isinstance(node.value, ast.Attribute)
            and node.value.attr == "pos"
            and isinstance(node.slice, ast.Constant)
            and node.slice.value == 2
        ):
            owner = node.value.value
            return self.bodies.get(owner.id) if isinstance(owner, ast.Name) else _body_call(owner)
        return None

    def reads_height(self, node: ast.AST) -> bool:
        """Whether `node` reads a body's height anywhere inside it."""
        return any(
            (isinstance(n, ast.Name) and n.id in self.height_of) or (isinstance(n, ast.expr) and self.height_read(n))
            for n in ast.walk(node)
        )

    def value(self, node: ast.expr, heights: dict[str, float]) -> float:
        """`node` evaluated on numbers, module constants and the reset `heights`; `_Unknown` for anything else."""
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
            return float(node.value)
        if isinstance(node, ast.Name):
            if node.id in self.numbers:
                return self.numbers[node.id]
            if node.id in self.height_of and self.height_of[node.id] in heights:
                return heights[self.height_of[node.id]]
            raise _Unknown
        if (body := self.height_read(node)) is not None:
            if body in heights:
                return heights[body]
            raise _Unknown
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -self.value(node.operand, heights)
        if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
            left, right = self.value(node.left, heights), self.value(node.right, heights)
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
                return float(getattr(math, node.func.attr)(self.value(node.args[0], heights)))
            except ValueError as exc:  # math domain error
                raise _Unknown from exc
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "float" and node.args:
            return self.value(node.args[0], heights)
        raise _Unknown


def fits(code: str, names: dict[str, Any]) -> bool:
    """Whether every height gate of `code` holds at the reset heights in `names["reset_z"]` (True without them)."""
    heights = names.get("reset_z") or {}
    return not heights or not shut_gates(code, heights)
