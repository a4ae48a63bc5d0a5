"""Which lines the built-in offline model may put into its template: a static shape check, no execution.

The local model fills `components["name"] = <expression>` lines into a fixed `compute_reward` template. A
270M base model often writes lines that parse but cannot run (`state.body["torso"]`, `next_state["x"]`,
a name the env lacks, `float()` of a 3-vector, a component it never set). `component_line` keeps only
lines whose expression is built from the State API with this environment's own names, numpy's elementwise
functions and arithmetic, and whose value is one number. It reads the code's syntax tree only: generated
code never runs in the process that holds the model.

An env without a MuJoCo model has no bodies to name, but its description may label single observation
dimensions (`- obs[2] = hull horizontal velocity ...`): `observation_lines` turns the labels that match the
task's words into task terms, so the template measures the task there too.
"""

from __future__ import annotations

import ast
import math
import re
from typing import Any

Shape = tuple[str, int]
"""("scalar", 1), ("vector", n), ("array", 0) of unknown length (the action), ("matrix", 3) or a handle:
("state", 0), ("body", 0), ("site", 0), ("joint:<kind>", 0)."""

SCALAR: Shape = ("scalar", 1)
TEMPLATE_MARK = "# rewardsmith template:"
"""The first line of every reward the built-in offline model returns: it was not designed by a model, and what
it is (a shipped example adapted to the task, or a fixed template with the model's checked lines)."""
NOT_DESIGNED = "; not designed by a model"
"""How every `TEMPLATE_MARK` line ends: the line reads on its own in a reward file, and `template_label` drops it."""
ELEMENTWISE = {"abs", "square", "sqrt", "tanh", "exp", "cos", "sin", "arctan", "sign", "negative"}
REDUCE = {"sum", "mean", "max", "min"}
BODY_FIELDS: dict[str, Shape] = {"pos": ("vector", 3), "linvel": ("vector", 3), "angvel": ("vector", 3)}
BODY_FIELDS |= {"quat": ("vector", 4), "xmat": ("matrix", 3)}
SITE_FIELDS: dict[str, Shape] = {"pos": ("vector", 3), "xmat": ("matrix", 3)}
JOINT_SIZES = {"free": (7, 6), "ball": (4, 3)}


def component_line(line: str, names: dict[str, Any]) -> str | None:
    """`line` (one `components["name"] = expr` statement) stripped, if its expression is one number built
    only from what this environment has; None otherwise."""
    try:
        tree = ast.parse(line.strip())
    except SyntaxError:
        return None
    if len(tree.body) != 1 or not isinstance(stmt := tree.body[0], ast.Assign) or len(stmt.targets) != 1:
        return None
    target = stmt.targets[0]
    if not (
        isinstance(target, ast.Subscript)
        and isinstance(target.value, ast.Name)
        and target.value.id == "components"
        and isinstance(target.slice, ast.Constant)
        and isinstance(target.slice.value, str)
        and target.slice.value.isidentifier()
    ):
        return None
    if _shape(stmt.value, names) != SCALAR or rewards_effort(stmt.value):
        return None
    return line.strip()


def rewards_effort(node: ast.expr) -> bool:
    """Whether an expression is a magnitude of the action alone with a positive sign (`np.sum(np.square(action))`,
    `0.1 * float(np.abs(action).sum())`): a term that pays the policy for effort, which the tiny model writes
    under names like "effort" and which no task wants."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "float" and node.args:
        return rewards_effort(node.args[0])
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Mult, ast.Div)):
        for scale, rest in ((node.left, node.right), (node.right, node.left)):
            if isinstance(scale, ast.Constant) and isinstance(scale.value, (int, float)) and scale.value > 0:
                return rewards_effort(rest)
        return False
    read = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
    if "action" not in read or read & {"state", "next_state"}:
        return False
    call = node.func if isinstance(node, ast.Call) else None
    if isinstance(call, ast.Attribute) and call.attr in {"sum", "mean", "max"} and _numpy_name(call) is None:
        return True  # np.abs(action).sum()
    return call is not None and _numpy_name(call) in {"sum", "mean", "max", "linalg.norm", "dot", "square", "abs"}


def reads_state(line: str) -> bool:
    """Whether a (checked) component line reads `state` or `next_state`."""
    names = {n.id for n in ast.walk(ast.parse(line.strip())) if isinstance(n, ast.Name)}
    return bool(names & {"state", "next_state"})


def _shape(node: ast.expr, names: dict[str, Any]) -> Shape | None:
    """The shape of `node`'s value, or None when it might not run on this environment."""
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return SCALAR
    if isinstance(node, ast.Name):
        return {"state": ("state", 0), "next_state": ("state", 0), "action": ("array", 0)}.get(node.id)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        return _shape(node.operand, names)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow)):
        return _broadcast(_shape(node.left, names), _shape(node.right, names))
    if isinstance(node, ast.Attribute):
        return _field(_shape(node.value, names), node.attr, names)
    if isinstance(node, ast.Subscript):
        return _index(_shape(node.value, names), node.slice)
    if isinstance(node, ast.Call) and not node.keywords:
        return _call(node, names)
    return None


def _broadcast(a: Shape | None, b: Shape | None) -> Shape | None:
    numeric = ("scalar", "vector", "array")
    if a is None or b is None or a[0] not in numeric or b[0] not in numeric:
        return None
    if a == SCALAR or b == SCALAR:
        return b if a == SCALAR else a
    return a if a == b and a[0] == "vector" else None


def _field(owner: Shape | None, attr: str, names: dict[str, Any]) -> Shape | None:
    if owner is None:
        return None
    kind = owner[0]
    if kind == "state":
        size = names.get("arrays", {}).get(attr)  # obs, goal, achieved_goal, where the prompt gives their sizes
        return SCALAR if attr in ("dt", "time") else ("vector", size) if size else None
    if kind == "body":
        return BODY_FIELDS.get(attr)
    if kind == "site":
        return SITE_FIELDS.get(attr)
    if kind.startswith("joint:") and attr in ("qpos", "qvel"):
        sizes = JOINT_SIZES.get(kind[6:])
        return SCALAR if sizes is None else ("vector", sizes[attr == "qvel"])
    return None


def _int(node: ast.expr | None) -> int | None:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        value = _int(node.operand)
        return None if value is None else -value
    return node.value if isinstance(node, ast.Constant) and type(node.value) is int else None


def _index(owner: Shape | None, index: ast.expr) -> Shape | None:
    if owner is None or owner[0] not in ("vector", "matrix"):
        return None
    size = owner[1]
    if owner[0] == "matrix":  # m[i, j] only
        if isinstance(index, ast.Tuple) and len(index.elts) == 2:
            ij = [_int(e) for e in index.elts]
            return SCALAR if all(v is not None and -size <= v < size for v in ij) else None
        return None
    if isinstance(index, ast.Slice):
        if index.step is not None:
            return None
        lower = 0 if index.lower is None else _int(index.lower)
        upper = size if index.upper is None else _int(index.upper)
        if lower is None or upper is None:
            return None
        n = len(range(size)[lower:upper])
        return ("vector", n) if n > 0 else None
    i = _int(index)
    return SCALAR if i is not None and -size <= i < size else None


def _call(node: ast.Call, names: dict[str, Any]) -> Shape | None:
    func, args = node.func, node.args
    if (
        isinstance(func, ast.Attribute)
        and isinstance(func.value, ast.Name)
        and func.value.id in ("state", "next_state")
    ):
        known = {
            "body": names["bodies"],
            "site": names["sites"],
            "joint": [j[0] for j in names["joints"]],
        }.get(func.attr)
        if known is None or len(args) != 1 or not isinstance(args[0], ast.Constant) or args[0].value not in known:
            return None
        if func.attr == "joint":
            return (f"joint:{next(k for n, k, _ in names['joints'] if n == args[0].value)}", 0)
        return (func.attr, 0)
    shapes = [_shape(a, names) for a in args]
    if any(s is None for s in shapes) or not shapes:
        return None
    name = _numpy_name(func)
    if isinstance(func, ast.Name) and func.id == "float" and len(args) == 1:
        return shapes[0] if shapes[0] == SCALAR else None
    if isinstance(func, ast.Name) and func.id == "abs" and len(args) == 1:
        return shapes[0] if shapes[0] and shapes[0][0] in ("scalar", "vector", "array") else None
    if isinstance(func, ast.Name) and func.id in ("min", "max") and len(args) >= 2:
        return SCALAR if all(s == SCALAR for s in shapes) else None
    if name in ELEMENTWISE and len(args) == 1:
        return shapes[0] if shapes[0] and shapes[0][0] in ("scalar", "vector", "array") else None
    if name in REDUCE and len(args) == 1:
        return SCALAR if shapes[0] and shapes[0][0] in ("scalar", "vector", "array") else None
    if name == "linalg.norm" and len(args) == 1:
        return SCALAR if shapes[0] and shapes[0][0] in ("vector", "array") else None
    if name == "dot" and len(args) == 2:
        return SCALAR if shapes[0] == shapes[1] and shapes[0] and shapes[0][0] == "vector" else None
    if name in ("minimum", "maximum") and len(args) == 2:
        return _broadcast(shapes[0], shapes[1])
    if name == "clip" and len(args) == 3 and shapes[1] == SCALAR == shapes[2]:
        return shapes[0] if shapes[0] and shapes[0][0] in ("scalar", "vector", "array") else None
    return None


def _numpy_name(func: ast.expr) -> str | None:
    """ "clip" for `np.clip`, "linalg.norm" for `np.linalg.norm`; None for anything else."""
    parts: list[str] = []
    while isinstance(func, ast.Attribute):
        parts.append(func.attr)
        func = func.value
    if isinstance(func, ast.Name) and func.id == "np" and parts:
        return ".".join(reversed(parts))
    return None


CENTRE_AS_GOAL = r"(?:near|at|in|around|to) the (?:middle|centre|center)"
"""The middle as where the task wants something ("near the middle"), not where it starts ("from the centre")."""

OBS_TERMS: list[tuple[tuple[str, ...], tuple[str, ...], str, str, bool]] = [
    # (task words, label words (all must appear), component name, expression of `next_state.obs[i]` as {x},
    #  whether every matching dimension is summed (else the first))
    (("forward", "walk", "run"), ("velocity", "horizontal"), "forward_speed", "float({x})", False),
    (("forward", "walk", "run"), ("speed", "forward"), "forward_speed", "float({x})", False),
    (("upright", "walk", "fall", "land"), ("angle", "hull"), "level", "-abs(float({x}))", False),
    (("upright", "fall", "land"), ("angle", "body"), "level", "-abs(float({x}))", False),
    (("land", "pad"), ("x position", "pad"), "over_pad", "-abs(float({x}))", False),
    (("land", "pad"), ("y position", "pad"), "height_above_pad", "-abs(float({x}))", False),
    (("land", "legs"), ("leg", "touches"), "leg_contact", "0.1 * float({x})", True),
    (("flag", "hill", "top"), ("position",), "position", "float({x})", False),
    (("upright",), ("cos", "upright"), "upright", "float({x})", False),
    (("upright", "balance"), ("angle", "upright"), "upright_angle", "-abs(float({x}))", False),
    ((CENTRE_AS_GOAL, "centred", "centered"), ("position",), "centred", "-0.2 * abs(float({x}))", False),
    # a turn the task asks for one way: paid that way, never docked for the swing back that builds the speed
    (("positive direction", "theta increasing"), ("angular velocity",), "turning", "max(0.0, float({x}))", False),
    (("negative direction", "theta decreasing"), ("angular velocity",), "turning", "max(0.0, -float({x}))", False),
    (("momentum", "swing", "-still", "-hold"), ("velocity",), "momentum", "10.0 * abs(float({x}))", False),
]
"""Task terms from documented observation labels (task words are matched as whole words or phrases; a term is
offered when the task names one of its words and none of its `-words`: building momentum helps a car reach a flag,
and would spin a pendulum that the task asks to hold still)."""


def observation_dims(text: str) -> dict[int, str]:
    """The single observation dimensions a description labels (`- obs[i] = label`), lower-cased."""
    return {int(m.group(1)): m.group(2).strip().lower() for m in re.finditer(r"^- obs\[(\d+)\] = (.+)$", text, re.M)}


TARGET = re.compile(r"\b([xyz])\s*=\s*([+-]?\d+(?:\.\d+)?)(?![\w.])")
"""A position the task names as a coordinate's value ("to x = +1.0")."""
ANGLE_TARGET = re.compile(r"\b(theta\d?|phi)\s*=\s*([+-]?\d+(?:\.\d+)?)(?![\w.])")
"""An angle the task names as a value ("hold it at theta = +0.3"), read where the observation gives its cos and sin."""


def target_dimension(dims: dict[int, str], axis: str) -> int | None:
    """The labelled dimension holding the position along `axis`: the one labelled "<axis> position", else, for x,
    the only one labelled a position (a cart's)."""
    positions = {i: label for i, label in sorted(dims.items()) if "position" in label}
    named = [i for i, label in positions.items() if re.search(rf"\b{axis}[ -]position\b", label)]
    if named:
        return named[0]
    return next(iter(positions)) if axis == "x" and len(positions) == 1 else None


def target_lines(dims: dict[int, str], task: str, used: set[int]) -> dict[str, str]:
    """Closeness to each target the task names as a value: a coordinate (`TARGET`) on its labelled position, an
    angle (`ANGLE_TARGET`) on its labelled cos and sin (adds the dimensions read to `used`). Each term is 1 at the
    target and never negative, so ending the episode sooner never pays."""
    lines: dict[str, str] = {}
    for axis, value in TARGET.findall(task):
        i = target_dimension(dims, axis)
        if i is not None and i not in used:
            used.add(i)  # 0 from 2 units away
            offset = f"- {float(value)!r}" if float(value) >= 0 else f"+ {-float(value)!r}"
            distance = f"abs(float(next_state.obs[{i}]) {offset})"
            lines[f"to_{axis}_target"] = f'components["to_{axis}_target"] = max(0.0, 1.0 - 0.5 * {distance})'
    for angle, value in ANGLE_TARGET.findall(task):
        cos, sin = (
            next((i for i, label in dims.items() if label.startswith(f"{f}({angle})")), None) for f in ("cos", "sin")
        )
        if cos is not None and sin is not None and not {cos, sin} & used:
            used.update((cos, sin))  # (1 + cos(angle - target)) / 2: 0 opposite the target
            c, s = round(math.cos(float(value)), 4), round(math.sin(float(value)), 4)
            cos_error = f"{c!r} * float(next_state.obs[{cos}]) {'-' if s < 0 else '+'} {abs(s)!r} * float(next_state.obs[{sin}])"
            lines[f"to_{angle}_target"] = f'components["to_{angle}_target"] = 0.5 + 0.5 * ({cos_error})'
    return lines


def observation_lines(dims: dict[int, str], task: str) -> list[str]:
    """Component lines reading the labelled `next_state.obs[i]` that the task's words call for: the targets it
    names as values (`target_lines`), then `OBS_TERMS`."""
    lines: dict[str, str] = {}

    def names(word: str) -> bool:
        return re.search(rf"\b{word.lstrip('-')}\b", task) is not None

    used: set[int] = set()  # a dimension measured by an earlier term is not measured twice
    lines.update(target_lines(dims, task, used))
    for task_words, label_words, name, expression, every in OBS_TERMS:
        wanted, unwanted = [w for w in task_words if w[0] != "-"], [w for w in task_words if w[0] == "-"]
        if name in lines or not any(map(names, wanted)) or any(map(names, unwanted)):
            continue
        found = [i for i, label in sorted(dims.items()) if all(w in label for w in label_words) and i not in used]
        if found:
            chosen = found if every else found[:1]
            used.update(chosen)
            terms = [expression.format(x=f"next_state.obs[{i}]") for i in chosen]
            lines[name] = f'components["{name}"] = {" + ".join(terms)}'
    return list(lines.values())


def template_label(code: str | None) -> str:
    """What a reward's `TEMPLATE_MARK` line says it is (without `NOT_DESIGNED`: whoever shows it says it is a
    template), or "" when it has none (a model designed it)."""
    for line in (code or "").splitlines():
        if line.startswith(TEMPLATE_MARK):
            return line[len(TEMPLATE_MARK) :].strip().removesuffix(NOT_DESIGNED)
    return ""
