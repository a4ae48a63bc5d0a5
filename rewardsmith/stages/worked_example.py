"""One worked example for the designer (as Text2Reward and RoboGen show): a hand-written, checked reward of a
shipped task of the same family (`envs/examples/`), so the model sees the State API in use, marked illustrative.

The rule: the example's task must ask for something else. Its word groups (`llm.example_choice.WORD_GROUPS`, read
from the task's name and first line: run/walk/hop, spin, flip, push/pick/place, reach, open, press, ...) share
none with this task's, so an example is never the same objective with a flipped sign, another axis or another goal
(halfcheetah-run-backward is not shown halfcheetah-run, metaworld-reach-fixed-goal not metaworld-reach, fetch-push
not fetch-pick-and-place). Among the rest, deterministically: the task whose env id shares the longest prefix with
this one, then the shortest file. None when no task of the family is left.
"""

from __future__ import annotations

import ast
import os

from rewardsmith.llm.example_choice import groups, task_text
from rewardsmith.task import ENVS_DIR, TaskSpec, list_tasks, task_family

MIN_SHARED_PREFIX = 4
"""A user's own task gets an example only from a shipped env whose id shares this many leading characters."""


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


def worked_example(spec: TaskSpec) -> tuple[str, str] | None:
    """(task name, code) of the example to show with `spec`'s request, or None when no other task fits."""
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
        choices.append((-_shared(other.env, spec.env), len(text), other.name, text))
    if not choices:
        return None
    _, _, name, text = min(choices)
    return name, _without_docstring(text)
