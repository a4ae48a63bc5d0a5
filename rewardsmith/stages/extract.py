"""Pulling a reward module out of an LLM reply.

Handles fenced blocks (```python, ```py, ```, ~~~) or none, prose around and between code, several blocks
(the last complete one defining the function wins; helpers it uses from other blocks are merged in),
JSON-wrapped code, `>>>` prompts, indented or tab-indented code and CRLF line ends. Demo code
(`if __name__ == "__main__":`, top-level prints and test calls) is removed. Everything goes through `ast`.
"""

from __future__ import annotations

import ast
import builtins
import json
import re
import textwrap
from dataclasses import dataclass

from rewardsmith.errors import ExtractionError
from rewardsmith.llm.code_identity import program

_FENCE_OPEN = re.compile(r"^[ \t]*(`{3,}|~{3,})[ \t]*([\w+#.-]*)")
_PYTHON_LANGS = {"", "python", "py", "python3", "py3", "ipython", "pycon"}
_CODE_START = re.compile(r"^[ \t]*(def |async def |class |import |from \S+ import |@|>>> )")
_CODE_LIKE = re.compile(r"^[A-Za-z_][\w.]*\s*(=|\(|\[|\+=|-=|\*=)")
_TRUNCATION_HINTS = ("was never closed", "unexpected EOF", "expected an indented block", "unterminated")
_IMPLICIT_IMPORTS = {"np": "import numpy as np", "numpy": "import numpy", "math": "import math"}


@dataclass
class _Block:
    code: str
    fenced: bool
    closed: bool


@dataclass
class _Parsed:
    source: str
    tree: ast.Module


def extract_reward_code(text: str, function_name: str = "compute_reward") -> str:
    """The Python module in an LLM reply that defines `function_name`, cleaned of prose and demo code.

    Raises `ExtractionError` saying why nothing usable was found (no code, truncated, syntax error, or
    the function missing, with the names that were found).
    """
    blocks = _blocks(_normalise(text))
    if not blocks:
        raise ExtractionError("no Python code found: the reply has no code block and no def/import line")
    parsed: list[_Parsed] = []
    errors: list[tuple[_Block, SyntaxError]] = []
    for block in blocks:
        result = _parse(block.code)
        if isinstance(result, SyntaxError):
            errors.append((block, result))
        else:
            parsed.append(result)
    defining = [p for p in parsed if function_name in _top_level_functions(p.tree)]
    if not defining:
        pattern = re.compile(rf"^[ \t]*(async[ \t]+)?def[ \t]+{re.escape(function_name)}[ \t]*\(", re.M)
        broken = [(b, e) for b, e in errors if pattern.search(b.code)] or errors
        if broken:
            raise ExtractionError(_describe_syntax_error(*broken[-1]))
        found = sorted({name for p in parsed for name in _all_functions(p.tree)})
        raise ExtractionError(f"no function named {function_name}; found: {', '.join(found) or 'no functions at all'}")
    chosen = defining[-1]
    source = _merge_helpers(chosen, [p for p in parsed if p is not chosen])
    source = _add_implicit_imports(source)
    source = _remove_demo_code(source, function_name)
    ast.parse(source)  # the cleaned module must still be valid; a failure here is a bug in this module
    return source


def is_cut_off(text: str) -> bool:
    """Whether a reply ends inside a code block it opened (the completion hit its token cap)."""
    return any(block.fenced and not block.closed for block in _blocks(_normalise(text)))


def dedupe(codes: list[str]) -> list[str]:
    """`codes` without duplicates, keeping first occurrences; code that differs only in whitespace or
    comments (same `ast.dump`) counts as a duplicate."""
    seen: set[str] = set()
    unique = []
    for code in codes:
        key = program(code, docstrings=True)
        if key not in seen:
            seen.add(key)
            unique.append(code)
    return unique


def _normalise(text: str) -> str:
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\ufeff", "").replace("\u200b", "")
    return text.replace("\u00a0", " ")


def _blocks(text: str, depth: int = 0) -> list[_Block]:
    """Candidate code: Python fenced blocks, code inside JSON, or the reply itself from its first code line."""
    if depth < 3 and (unwrapped := _json_code(text)) is not None:
        return _blocks(unwrapped, depth + 1)
    lines = text.split("\n")
    blocks, i = [], 0
    while i < len(lines):
        match = _FENCE_OPEN.match(lines[i])
        if not match:
            i += 1
            continue
        fence, lang = match.group(1), match.group(2).lower()
        close = re.compile(rf"^[ \t]*{re.escape(fence[0])}{{{len(fence)},}}[ \t]*$")
        j = i + 1
        while j < len(lines) and not close.match(lines[j]):
            j += 1
        code = "\n".join(lines[i + 1 : j])
        if lang == "json" and depth < 3 and (unwrapped := _json_code(code)) is not None:
            blocks.extend(_blocks(unwrapped, depth + 1))
        elif lang in _PYTHON_LANGS or re.search(r"^[ \t]*def ", code, re.M):
            blocks.append(_Block(code, fenced=True, closed=j < len(lines)))
        i = j + 1
    if blocks:
        return blocks
    starts = [k for k, line in enumerate(lines) if _CODE_START.match(line)]
    return [_Block("\n".join(lines[starts[0] :]), fenced=False, closed=True)] if starts else []


def _json_code(text: str) -> str | None:
    """The code string inside a JSON reply such as {"code": "def compute_reward(...)..."}, if any."""
    stripped = text.strip()
    if not stripped.startswith(("{", '"', "[")):
        return None
    try:
        value = json.loads(stripped)
    except ValueError:
        return None
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str) and re.search(r"^[ \t]*def ", item, re.M):
            return item
        if isinstance(item, dict):
            stack.extend(reversed(list(item.values())))
        elif isinstance(item, list):
            stack.extend(reversed(item))
    return None


def _parse(code: str) -> _Parsed | SyntaxError:
    """Parse a block, repairing `>>>` prompts, uniform indentation, tabs and stray prose lines."""
    code = textwrap.dedent(_strip_prompts(code)).strip("\n") + "\n"
    attempts = [code]
    if "\t" in code:
        attempts.append(re.sub(r"(?m)^[ \t]+", lambda m: m.group(0).expandtabs(4), code))
    first_error: SyntaxError | None = None
    for candidate in attempts:
        lines = candidate.split("\n")
        while True:  # each pass blanks one prose line, so this ends
            try:
                source = "\n".join(lines)
                return _Parsed(source, ast.parse(source))
            except SyntaxError as exc:
                number = (exc.lineno or 0) - 1
                if not (0 <= number < len(lines) and _is_prose(lines[number])):
                    first_error = first_error or exc
                    break
                lines[number] = ""
    assert first_error is not None
    return first_error


def _strip_prompts(code: str) -> str:
    """Turn an interactive session (`>>> ` and `... ` prompts, output lines) into plain code."""
    lines = code.split("\n")
    if not any(line.lstrip().startswith(">>>") for line in lines):
        return code
    kept = []
    for line in lines:
        stripped = line.lstrip()
        if stripped.startswith((">>>", "...")):
            rest = stripped[3:]
            kept.append(rest[1:] if rest.startswith(" ") else rest)
    return "\n".join(kept)


def _is_prose(line: str) -> bool:
    """A line of explanation rather than code: at column 0, not parseable alone, not a code opener."""
    if not line.strip() or line[0] in " \t" or _CODE_START.match(line) or _CODE_LIKE.match(line):
        return False
    word = line.split()[0].rstrip(":")
    if word in {"if", "elif", "else", "for", "while", "try", "except", "finally", "with", "return", "def"}:
        return False
    try:
        ast.parse(line)
    except SyntaxError:
        return True
    return False


def _describe_syntax_error(block: _Block, error: SyntaxError) -> str:
    lines = textwrap.dedent(_strip_prompts(block.code)).strip("\n").split("\n")
    last = len(lines)
    where = f"SyntaxError at line {error.lineno}"
    message = error.msg or ""
    at_end = (error.lineno or 0) >= last - 1
    truncated = not block.closed or (
        any(h in message for h in _TRUNCATION_HINTS)
        and (at_end or "never closed" in message or "EOF" in message or "unterminated triple" in message)
    )
    if truncated:
        return f"code is truncated: {message} ({where} of {last}); ask for a shorter answer or raise max_tokens"
    return f"code has a syntax error: {message} ({where}: {(error.text or '').strip()!r})"


def _top_level_functions(tree: ast.Module) -> list[str]:
    return [n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]


def _all_functions(tree: ast.Module) -> list[str]:
    names = _top_level_functions(tree)
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            names += [
                f"{node.name}.{n.name}" for n in node.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
            ]
    return names


def _defined(stmt: ast.stmt) -> set[str]:
    """Module-level names a statement binds."""
    if isinstance(stmt, (ast.Import, ast.ImportFrom)):
        return {(a.asname or a.name).split(".")[0] for a in stmt.names}
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {stmt.name}
    if isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        return {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
    return set()


def _free(node: ast.AST) -> set[str]:
    """Names a piece of code reads but never binds (nor are builtins): what it needs from elsewhere."""
    loaded: set[str] = set()
    bound: set[str] = set()
    for n in ast.walk(node):
        if isinstance(n, ast.Name):
            (loaded if isinstance(n.ctx, ast.Load) else bound).add(n.id)
        elif isinstance(n, ast.arg):
            bound.add(n.arg)
        elif isinstance(n, ast.stmt):
            bound |= _defined(n)
        elif isinstance(n, ast.ExceptHandler) and n.name:
            bound.add(n.name)
    return loaded - bound - set(dir(builtins))


def _lines_of(source: str, stmt: ast.stmt) -> str:
    start = min([stmt.lineno] + [d.lineno for d in getattr(stmt, "decorator_list", [])])
    return "\n".join(source.split("\n")[start - 1 : stmt.end_lineno])


def _merge_helpers(chosen: _Parsed, others: list[_Parsed]) -> str:
    """Put into `chosen` the statements of other blocks that define names it uses but does not define."""
    own = set().union(*(_defined(s) for s in chosen.tree.body))
    needed = _free(chosen.tree)
    picked: list[tuple[int, int, ast.stmt]] = []
    changed = True
    while changed:
        changed = False
        for b, block in enumerate(others):
            for s, stmt in enumerate(block.tree.body):
                if (b, s, stmt) not in picked and _defined(stmt) & needed:
                    picked.append((b, s, stmt))
                    needed |= _free(stmt) - own
                    changed = True
    if not picked:
        return chosen.source
    picked.sort(key=lambda item: (not isinstance(item[2], (ast.Import, ast.ImportFrom)), item[0], item[1]))
    helpers, previous = "", None
    for b, _, stmt in picked:
        text = _lines_of(others[b].source, stmt)
        if text in helpers:  # the same import or constant in two blocks
            continue
        simple = isinstance(stmt, (ast.Import, ast.ImportFrom, ast.Assign, ast.AnnAssign))
        helpers += ("" if previous is None else "\n" if simple and previous else "\n\n\n") + text
        previous = simple
    body = chosen.tree.body
    first = next((s for s in body if not isinstance(s, (ast.Import, ast.ImportFrom)) and not _is_docstring(s)), None)
    lines = chosen.source.split("\n")
    at = first.lineno - 1 if first is not None else len(lines)
    while at > 0 and lines[at - 1].startswith("#"):
        at -= 1
    return "\n".join(lines[:at] + ["", helpers, "", ""] + lines[at:])


def _is_docstring(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str)


def _add_implicit_imports(source: str) -> str:
    """Add `import numpy as np` / `import math` when the code uses them without importing them."""
    tree = ast.parse(source)
    missing = [line for name, line in _IMPLICIT_IMPORTS.items() if name in _free(tree)]
    if not missing:
        return source
    lines = source.split("\n")
    at = tree.body[0].end_lineno if tree.body and _is_docstring(tree.body[0]) else 0
    return "\n".join(lines[:at] + missing + [""] + lines[at:])


def _is_demo(stmt: ast.stmt, testers: set[str]) -> bool:
    if isinstance(stmt, ast.If):
        test = stmt.test
        return isinstance(test, ast.Compare) and isinstance(test.left, ast.Name) and test.left.id == "__name__"
    if isinstance(stmt, ast.Expr):
        return not _is_docstring(stmt)
    if isinstance(stmt, (ast.Assert, ast.For, ast.AsyncFor, ast.While)):
        return True
    if isinstance(stmt, (ast.Assign, ast.AnnAssign)) and stmt.value is not None:
        return bool(_called(stmt.value) & testers)
    return False


def _called(node: ast.AST) -> set[str]:
    """Names of the plain functions a piece of code calls."""
    return {n.func.id for n in ast.walk(node) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}


def _testers(tree: ast.Module, function_name: str) -> set[str]:
    """`function_name` and the top-level functions that call it, directly or through each other: an assignment
    that calls one of these is a test call (`r = compute_reward(...)`); one that calls only helpers is a module
    constant the reward may read (`WEIGHTS = _normalised([2, 1])`)."""
    calls = {n.name: _called(n) for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    testers = {function_name}
    while grown := {name for name, called in calls.items() if called & testers} - testers:
        testers |= grown
    return testers


def _remove_demo_code(source: str, function_name: str) -> str:
    """Drop `__main__` blocks, top-level prints/test calls, and test inputs set up after the function."""
    tree = ast.parse(source)
    testers = _testers(tree, function_name)
    body = tree.body
    drop = [s for s in body if _is_demo(s, testers)]
    kept = [s for s in body if s not in drop]
    reward_line = next(s.lineno for s in body if getattr(s, "name", None) == function_name)
    for stmt in kept:  # test inputs such as `state = {...}` after the function, read by nothing kept
        if isinstance(stmt, (ast.Assign, ast.AnnAssign)) and stmt.lineno > reward_line:
            readers = set().union(*(_free(other) for other in kept if other is not stmt))
            if not _defined(stmt) & readers:
                drop.append(stmt)
    lines = source.split("\n")
    for stmt in sorted(drop, key=lambda s: s.lineno, reverse=True):
        start = stmt.lineno - 1
        while start > 0 and lines[start - 1].lstrip().startswith("#") and not lines[start - 1].startswith(" "):
            start -= 1
        del lines[start : stmt.end_lineno]
    cleaned = "\n".join(line.rstrip() for line in lines).strip("\n")
    return re.sub(r"\n{4,}", "\n\n\n", cleaned) + "\n"
