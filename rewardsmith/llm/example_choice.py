"""The offline model's template: the closest shipped example reward (`envs/examples/*.py`, hand-written and
checked), chosen for a task it has not seen and adapted to it.

An example is a candidate only if it can run on the requested env, judged from the prompt alone (its syntax
tree, never executed): every body, site or joint name it quotes is one of this env's, every `obs` index it reads
is inside the observation, it reads `goal`/`achieved_goal` only where the env has them, and its height gates hold
at this env's reset pose (`reset_gates`: ant-spin's upright band, 0.2 to 1.0 m, is shut for Swimmer's torso at
z = 0, where the example would pay only its penalties). The task's own
example (same env, same task text) is never chosen: it is the reference answer, and the offline model must
not pass it off as a design. Among the rest, shared task words (push, reach, run, spin, ...) count most, then
the same env id, then the same env family. A locomotion example whose direction differs from the task's words
(backward, left/+y, right/-y) is adapted: its x position and velocity reads move to the task's axis and its
velocity term's sign follows; of two examples that are one reward pointed two ways (halfcheetah-run and
-backward), a task gets one, never the same reward twice. The result starts with a comment saying it is a template (`template.TEMPLATE_MARK`).

This choice stays close on purpose (halfcheetah-run-backward gets halfcheetah-run, its sign flipped): the template
is the offline model's own answer, labelled as one, and a 270M model needs a reward that already measures the task.
The illustrative example shown to a model in a request is chosen by a different rule (`stages.worked_example`):
one that asks for something else, so it shows the State API without giving the answer away.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from functools import cache
from typing import Any

from rewardsmith.errors import RewardsmithError
from rewardsmith.llm.reset_gates import fits
from rewardsmith.llm.template import ANGLE_TARGET, NOT_DESIGNED, TARGET, TEMPLATE_MARK
from rewardsmith.task import ENVS_DIR, list_tasks

WORD_GROUPS: dict[str, str] = {
    "locomotion": r"\b(run|runs|running|walk|walks|walking|hop|hops|hopping|forward|sprint)\b|\b(to|towards) (the|its) (left|right)\b|sideways|[+-][xy]\b",
    "spin": r"\b(spin|turn|rotat|yaw)",
    "flip": r"flip\b|somersault",
    "move_object": r"\bpush the|\bslide the (puck|block)|\bpick|\bplace\b|\bgrasp the (block|puck)|\bcarry",
    "reach": r"\breach|\b(hand|gripper)\b.*\bto the goal",
    "open": r"\bopen\b",
    "press": r"\bpress\b",
    "insert": r"\binsert",
    "balance": r"\bbalance|\bupright",
    "land": r"\bland\b",
    "hammer": r"\bhammer|\bnail\b",
    "flag": r"\bflag\b|\bhill\b",
    "one_leg": r"\bone (leg|foot)\b",
}
"""What a task's first line asks for, by pattern: an example is a candidate only if its task's name and first
line share at least one group with the task's first line."""
EXCLUSIVE_GROUPS = ("flip",)
"""Groups an example and a task must share or both lack: a flip turns about a horizontal axis, a spin about the
vertical one ("rotate backward" names both), so ant-spin's yaw reward is no backflip's."""
WEIGHTS = {"words": 3, "env": 2, "family": 1}


@dataclass(frozen=True)
class Example:
    """A shipped task's example reward, as the chooser sees it."""

    task: str
    env: str
    text: str
    """The task's name and the description's first line, lower-cased."""
    first_line: str
    """The description's first line, lower-cased: the mark of the task's own prompt."""
    code: str


@cache
def shipped_examples() -> tuple[Example, ...]:
    """Every shipped task that has an example reward (`envs/examples/<task>.py`)."""
    found = []
    for spec in list_tasks(ENVS_DIR):
        path = spec.example_reward
        if path is not None:
            first = " ".join(spec.description.strip().splitlines()[0].lower().split())
            text = task_text(spec.name, spec.description)
            found.append(Example(spec.name, spec.env, text, first, path.read_text(encoding="utf-8")))
    return tuple(found)


def task_text(name: str, description: str) -> str:
    """What a task asks for, as the word groups read it: its name and its description's first line, lower-cased."""
    lines = description.strip().splitlines() or [""]
    return f"{name.replace('-', ' ')} {' '.join(lines[0].lower().split())}"


def groups(text: str) -> set[str]:
    """The `WORD_GROUPS` a text names."""
    return {g for g, pattern in WORD_GROUPS.items() if re.search(pattern, text)}


def named_values(text: str) -> dict[str, float]:
    """The targets a text names as values, symbol -> value: a coordinate ("x = +1.0") or an angle ("theta = +0.3")."""
    return {symbol: float(value) for pattern in (TARGET, ANGLE_TARGET) for symbol, value in pattern.findall(text)}


def direction(text: str) -> tuple[int, int]:
    """(axis, sign) of the motion a task's words ask for: (0, 1) forward by default, (0, -1) backward,
    (1, 1) left/+y, (1, -1) right/-y."""
    if re.search(r"\bbackwards?\b|-x\b", text):
        return 0, -1
    if re.search(r"(to (the|its) left\b|leftward|\+y\b|positive y)", text):
        return 1, 1
    if re.search(r"(to (the|its) right\b|rightward|-y\b|negative y)", text):
        return 1, -1
    return 0, 1


def _family(env: str) -> str:
    """The env id's leading word: `Fetch` for FetchPush-v4, `Meta` for Meta-World/MT1, `Ant` for Ant-v5."""
    match = re.match(r"[A-Z]?[a-z]+", env)
    return match.group(0) if match else env


def runnable(code: str, names: dict[str, Any], same_family: bool = True) -> bool:
    """Whether the example's quoted names, `obs` indices and goal arrays all exist in the prompt's env and its height
    gates hold at the env's reset pose (`reset_gates.fits`); an example that reads `obs` by index only on an env of
    its own family (elsewhere the indices mean other things)."""
    tree = ast.parse(code)
    known = set(names["bodies"]) | set(names["sites"]) | {j[0] for j in names["joints"]}
    arrays = names.get("arrays", {})
    keys = {id(k) for d in ast.walk(tree) if isinstance(d, ast.Dict) for k in d.keys if k is not None}
    keys |= {id(s.slice) for s in ast.walk(tree) if isinstance(s, ast.Subscript)}
    docs = {
        id(n.body[0].value)
        for n in ast.walk(tree)
        if isinstance(n, (ast.Module, ast.FunctionDef)) and n.body and isinstance(n.body[0], ast.Expr)
    }
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and id(node) not in keys | docs
            and node.value not in known
        ):
            return False
        if isinstance(node, ast.Attribute) and node.attr in ("goal", "achieved_goal") and node.attr not in arrays:
            return False
        if (
            isinstance(node, ast.Subscript)
            and _reads_obs(node.value)
            and not (same_family and _inside(node.slice, arrays.get("obs")))
        ):
            return False
    return fits(code, names)


def _reads_obs(node: ast.expr) -> bool:
    return (isinstance(node, ast.Attribute) and node.attr == "obs") or (isinstance(node, ast.Name) and node.id == "obs")


def _inside(index: ast.expr, size: int | None) -> bool:
    """Whether a constant index or slice of `obs` stays inside an observation of `size` dims (unknown: no)."""
    if size is None:
        return False
    bounds = [index.lower, index.upper] if isinstance(index, ast.Slice) else [index]
    values = [b.value for b in bounds if isinstance(b, ast.Constant) and isinstance(b.value, int)]
    limit = size if isinstance(index, ast.Slice) else size - 1
    return all(0 <= v <= limit for v in values)


def ranked(names: dict[str, Any], env: str, task: str) -> list[Example]:
    """The examples that can run on this env and share a task word group with `task` (its first line), closest
    first; the task's own example is left out, so is one on the other side of an `EXCLUSIVE_GROUPS` group, and so
    is one whose task names other target values than this task (`named_values`: each must name the same, or
    neither any); a mirrored pair (`_mirrors`) stands once, at its closer one's place, by the one going the task's
    way, else the closer."""
    wanted, asked = groups(task), named_values(task)
    scored = []
    for ex in shipped_examples():
        if (ex.env == env and ex.first_line in " ".join(task.split())) or not wanted & groups(ex.text):
            continue
        if any((g in wanted) != (g in groups(ex.text)) for g in EXCLUSIVE_GROUPS):
            continue
        if named_values(ex.text) != asked:
            continue  # built for another target: pendulum-hold-tilted's theta = +0.3 against swing-up's upright
        try:
            if not runnable(ex.code, names, _family(ex.env) == _family(env)):
                continue
        except SyntaxError:
            continue
        score = WEIGHTS["words"] * len(wanted & groups(ex.text)) + WEIGHTS["env"] * (ex.env == env)
        score += WEIGHTS["family"] * (_family(ex.env) == _family(env))
        scored.append((-score, len(ex.code), ex.task, ex))
    found = [ex for *_, ex in sorted(scored, key=lambda s: s[:3])]
    kept: list[Example] = []
    for ex in found:  # a mirrored pair once, at its closer one's place: the one going the task's way, else that one
        pair = [ex, *(other for other in found if _mirrors(ex, other))]
        if not any(one in kept for one in pair):
            kept.append(next((one for one in pair if direction(one.text) == direction(task)), ex))
    return kept


def _mirrors(a: Example, b: Example) -> bool:
    """Whether two locomotion examples are one reward pointed two ways (halfcheetah-run and -backward): the same env
    and task words, another direction. Adapted to a task's direction each becomes the other, so a task gets one of
    them, not the same reward twice."""
    same_words = groups(a.text) == groups(b.text) and "locomotion" in groups(a.text)
    return a.env == b.env and same_words and direction(a.text) != direction(b.text)


def adapt(example: Example, task: str) -> tuple[str, str]:
    """(code, what was changed) of `example` for `task`: a locomotion example's axis and sign follow the task's
    direction words; the docstring is replaced by the template comment."""
    tree = ast.parse(example.code)
    if tree.body and isinstance(tree.body[0], ast.Expr) and isinstance(tree.body[0].value, ast.Constant):
        tree.body = tree.body[1:]
    changes = []
    (axis, sign), (ex_axis, ex_sign) = direction(task), direction(example.text)
    if "locomotion" in groups(example.text) and (axis, sign) != (ex_axis, ex_sign):
        moved = _move_axis(tree, ex_axis, axis) if axis != ex_axis else 0
        label = {(0, 1): "pos_x", (0, -1): "neg_x", (1, 1): "pos_y", (1, -1): "neg_y"}[(axis, sign)]
        if (moved or sign != ex_sign) and _velocity_terms(tree, sign != ex_sign, f"velocity_{label}"):
            changes.append(f"adapted: its motion term now along {label.replace('_', ' ')}")
            for node in ast.walk(tree):  # `forward_velocity` no longer measures forward motion
                if isinstance(node, ast.Name) and re.search(r"forward|backward", node.id):
                    node.id = re.sub(r"forward|backward", "directed", node.id)
    what = "; ".join(changes) or "used as it is"
    header = f"{TEMPLATE_MARK} shipped example `{example.task}`, the closest to this task, {what}{NOT_DESIGNED}"
    return f"{header}\n{ast.unparse(tree)}\n", what


def _move_axis(tree: ast.Module, old: int, new: int) -> int:
    """Point `.pos[old]`/`.linvel[old]` reads at `new`; the number changed."""
    count = 0
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Subscript)
            and isinstance(node.value, ast.Attribute)
            and node.value.attr in ("pos", "linvel")
            and isinstance(node.slice, ast.Constant)
            and node.slice.value == old
        ):
            node.slice = ast.Constant(new)
            count += 1
    return count


def _velocity_terms(tree: ast.Module, negate: bool, name: str) -> int:
    """Rename each `components` entry named for a velocity or speed to `name` (negated with `negate`); the number
    changed."""
    count = 0
    for node in ast.walk(tree):
        if not isinstance(node, ast.Dict):
            continue
        for i, key in enumerate(node.keys):
            if isinstance(key, ast.Constant) and re.search(r"velocity|speed", str(key.value)):
                node.values[i] = ast.UnaryOp(ast.USub(), node.values[i]) if negate else node.values[i]
                key.value = name
                count += 1
    return count


def adapted_examples(names: dict[str, Any], env: str, task: str) -> list[tuple[str, str]]:
    """(code, note) of every adaptable shipped example, closest first (the ranking is computed once)."""
    try:
        choices = ranked(names, env, task)
    except RewardsmithError:
        return []
    found = []
    for choice in choices:
        code, what = adapt(choice, task)
        found.append((code, f"the closest shipped example reward, `{choice.task}`, {what}"))
    return found
