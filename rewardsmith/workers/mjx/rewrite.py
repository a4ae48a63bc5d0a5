"""A reward's branches on values rewritten so that they trace to JAX: what the MJX backend tries when the source
as written does not trace (`reward_export.export_reward`).

Python decides `a if c else b`, `x and y`, `not x` and `lo <= x <= hi` by converting a value to bool, which a JAX
tracer refuses. Most rewards use them only to pick between numbers, so `traceable_source` rewrites them into
numpy's element-wise forms, which `jax_state.traceable` then maps to `jax.numpy`:
- `a if c else b` -> `np.where(c, a, b)` (both sides are computed; the chosen one's value is the same);
- `x and y`, `x or y`, `not x` -> `np.logical_and(x, y)`, `np.logical_or(x, y)`, `np.logical_not(x)`, where the
  result is used as a condition (the test of `a if c else b`, or inside another such operator) or every operand
  is a truth value by its syntax (a comparison, `True`/`False`, another such operator, or a name every assignment
  of which is one): `x or default` on numbers keeps Python's meaning and stays as written;
- `lo <= x <= hi` -> `np.logical_and(lo <= x, x <= hi)`.
`if` statements, loops and `return` inside branches are left alone: such a reward stays untraceable.

The rewrite is never trusted blindly: the caller compares the rewritten reward with the original on real
transitions (`same_values`) and uses it only when every total and component agrees.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Callable, Sequence
from typing import Any

TRUTH_CALLS = frozenset({"isfinite", "isnan", "isinf", "logical_and", "logical_or", "logical_not", "all", "any"})


def _np(attr: str, args: list[ast.expr]) -> ast.Call:
    return ast.Call(
        func=ast.Attribute(value=ast.Name(id="np", ctx=ast.Load()), attr=attr, ctx=ast.Load()), args=args, keywords=[]
    )


def _chain(attr: str, values: list[ast.expr]) -> ast.expr:
    out = values[0]
    for value in values[1:]:
        out = _np(attr, [out, value])
    return out


class _Rewrite(ast.NodeTransformer):
    def __init__(self, truth_names: set[str]) -> None:
        self.truth_names = truth_names
        self.changed = False

    def is_truth(self, node: ast.expr) -> bool:
        """A truth value by its syntax alone."""
        if isinstance(node, ast.Compare) or (isinstance(node, ast.Constant) and isinstance(node.value, bool)):
            return True
        if isinstance(node, ast.BoolOp):
            return all(self.is_truth(v) for v in node.values)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            return True
        if isinstance(node, ast.Name):
            return node.id in self.truth_names
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            return node.func.attr in TRUTH_CALLS
        return False

    def condition(self, node: ast.expr) -> ast.expr:
        """`node` rewritten where it is used as a condition: its boolean operators become logical ones."""
        if isinstance(node, ast.BoolOp):
            self.changed = True
            attr = "logical_and" if isinstance(node.op, ast.And) else "logical_or"
            return _chain(attr, [self.condition(v) for v in node.values])
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            self.changed = True
            return _np("logical_not", [self.condition(node.operand)])
        return self.expr(node)

    def expr(self, node: ast.expr) -> ast.expr:
        """`node` visited (every visitor here returns an expression for an expression)."""
        out = self.visit(node)
        assert isinstance(out, ast.expr)
        return out

    def visit_IfExp(self, node: ast.IfExp) -> ast.expr:
        self.changed = True
        return _np("where", [self.condition(node.test), self.expr(node.body), self.expr(node.orelse)])

    def visit_BoolOp(self, node: ast.BoolOp) -> ast.AST:
        return self.condition(node) if self.is_truth(node) else self.generic_visit(node)

    def visit_UnaryOp(self, node: ast.UnaryOp) -> ast.AST:
        if isinstance(node.op, ast.Not) and self.is_truth(node.operand):
            return self.condition(node)
        return self.generic_visit(node)

    def visit_Compare(self, node: ast.Compare) -> ast.expr:
        self.generic_visit(node)
        if len(node.ops) == 1:
            return node
        self.changed = True
        operands = [node.left, *node.comparators]
        pairs: list[ast.expr] = [
            ast.Compare(left=operands[i], ops=[op], comparators=[operands[i + 1]]) for i, op in enumerate(node.ops)
        ]
        return _chain("logical_and", pairs)


def _truth_names(tree: ast.Module) -> set[str]:
    """Names every assignment of which is a truth value by its syntax (found to a fixed point)."""
    assigned: dict[str, list[ast.expr]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            assigned.setdefault(node.targets[0].id, []).append(node.value)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)) and isinstance(node.target, ast.Name):
            assigned.setdefault(node.target.id, []).append(ast.Constant(value=None))  # not a truth value
    names: set[str] = set()
    while True:
        probe = _Rewrite(names)
        found = {name for name, values in assigned.items() if all(probe.is_truth(v) for v in values)}
        if found == names:
            return names
        names = found


def traceable_source(source: str) -> str | None:
    """`source` with its value branches rewritten (see the module docstring); None when nothing was rewritten."""
    tree = ast.parse(source)
    rewrite = _Rewrite(_truth_names(tree))
    tree = ast.fix_missing_locations(rewrite.visit(tree))
    return ast.unparse(tree) if rewrite.changed else None


def same_values(original: Callable, rewritten: Callable, transitions: Sequence[tuple[Any, Any, Any]]) -> str | None:
    """None when both rewards give the same total and components on every transition (to float32 rounding, as
    JAX computes); else what differed, for the finding."""
    for i, transition in enumerate(transitions):
        try:
            want, got = original(*transition), rewritten(*transition)
        except Exception as e:  # noqa: BLE001 - the candidate's code: any failure means "not the same"
            return f"transition {i}: {type(e).__name__}: {e}"
        (total, parts), (total2, parts2) = want, got
        pairs = [("total", total, total2)] + [(k, v, parts2.get(k)) for k, v in parts.items()]
        if set(parts) != set(parts2):
            return f"transition {i}: components {sorted(parts)} became {sorted(parts2)}"
        for name, a, b in pairs:
            a, b = float(a), float(b)
            if not (math.isclose(a, b, rel_tol=1e-5, abs_tol=1e-6) or (math.isnan(a) and math.isnan(b))):
                return f"transition {i}: {name} {a:.6g} became {b:.6g}"
    return None
