"""One worked example for the designer (as Text2Reward and RoboGen show): a hand-written, checked reward of a
shipped task of the same family (`envs/examples/`), so the model sees the State API in use, marked illustrative.

The rule: the example's task must ask for something else. Its word groups (`llm.example_choice.WORD_GROUPS`, read
from the task's name and first line: run/walk/hop, spin, flip, push/pick/place, reach, open, press, ...) share
none with this task's, so an example is never the same objective with a flipped sign, another axis or another goal
(halfcheetah-run-backward is not shown halfcheetah-run, metaworld-reach-fixed-goal not metaworld-reach, fetch-push
not fetch-pick-and-place). Among the rest, deterministically: the task whose env id shares the longest prefix with
this one, then the shortest file. None when no task of the family is left.

An example that reads `action` is shown only to a task whose action space is of the same kind: a continuous
task's effort term squares an action array, which on a discrete task's choice index (0, 1, 2) would penalise one
torque direction more than the other. Discrete action spaces ship only in the Box2D and classic-control family, so
only there is an example's env made to ask.
"""

from __future__ import annotations

import ast
import os

from rewardsmith.llm.example_choice import groups, task_text
from rewardsmith.stages.env_facts import env_facts
from rewardsmith.task import ENVS_DIR, TaskSpec, list_tasks, task_family

MIN_SHARED_PREFIX = 4
"""A user's own task gets an example only from a shipped env whose id shares this many leading characters."""
MIXED_ACTION_FAMILY = "Box2D and classic control"
"""The one family with discrete action spaces (Acrobot, CartPole, MountainCar-v0, LunarLander's default)."""


def _shared(a: str, b: str) -> int:
    return len(os.path.commonprefix([a, b]))


def objective(spec: TaskSpec) -> set[str]:
    """What a task asks for: the word groups of its name and its description's first line."""
    return groups(task_text(spec.name, spec.description))


def _without_docstring(source: str) -> str:
    """The module with its docstring cut to its first line (a comment), so the example costs few tokens."""
    tree = ast.parse(source)
    doc = ast.get_docstring(tree)
    if not doc or not tree.body:
        return source.strip()
    rest = source.splitlines()[tree.body[0].end_lineno :]
    return "\n".join([f"# {doc.splitlines()[0]}", *rest]).strip()


def reads_action(source: str) -> bool:
    """Whether a reward module's `compute_reward` reads its `action` argument."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef) and node.name == "compute_reward":
            return any(isinstance(n, ast.Name) and n.id == "action" for n in ast.walk(node))
    return False


def _discrete(spec: TaskSpec) -> bool:
    """Whether a shipped task's env takes discrete actions (its env made only in the one mixed family)."""
    return task_family(spec) == MIXED_ACTION_FAMILY and env_facts(spec).discrete_action


def worked_example(spec: TaskSpec, *, discrete: bool = False) -> tuple[str, str] | None:
    """(task name, code) of the example to show with `spec`'s request, or None when no other task fits.

    `discrete`: this task's action is one of N choices (an example that reads `action` must then be a discrete
    task's, and a continuous task is never shown a discrete task's)."""
    shipped = spec.source is not None and spec.source.parent == ENVS_DIR
    family, wanted = task_family(spec), objective(spec)
    choices = []
    for other in list_tasks(ENVS_DIR):
        path = other.example_reward
        if other.name == spec.name or path is None or task_family(other) != family or wanted & objective(other):
            continue
        if not shipped and _shared(other.env, spec.env) < MIN_SHARED_PREFIX:
            continue
        text = path.read_text(encoding="utf-8")
        choices.append((-_shared(other.env, spec.env), len(text), other.name, other, text))
    for *_, other, text in sorted(choices, key=lambda c: c[:3]):  # by prefix, length, then name
        if not reads_action(text) or _discrete(other) == discrete:
            return other.name, _without_docstring(text)
    return None
