"""When two reward modules are the same program: compared by syntax tree, so comments, docstrings, whitespace and
formatting do not count. The offline model uses it to avoid handing back code the run already tried, and the cache
key of such a request holds the fingerprints of that code; the loop's duplicate check (`stages.extract.dedupe`)
uses the same key with docstrings kept."""

from __future__ import annotations

import ast
import hashlib


def same_code(a: str, b: str) -> bool:
    """Whether two modules are the same program (comments, docstrings aside: compared by syntax tree)."""
    return program(a) == program(b)


def fingerprint(code: str) -> str:
    """A short hash of the program `code` is (equal for `same_code` modules)."""
    return hashlib.sha256(program(code).encode()).hexdigest()[:16]


def program(code: str, *, docstrings: bool = False) -> str:
    """The module's syntax tree dumped (without docstrings unless `docstrings`); code that does not parse, its
    stripped lines."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return "\n".join(line.rstrip() for line in code.strip().splitlines())
    if docstrings:
        return ast.dump(tree)
    for node in ast.walk(tree):
        if not isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) or not node.body:
            continue
        first = node.body[0]
        if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
            node.body = node.body[1:] or [ast.Pass()]
    return ast.dump(tree)
