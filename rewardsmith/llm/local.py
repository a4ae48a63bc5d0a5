"""The built-in offline model: Gemma 3 270M (a tiny base model, GGUF from PyPI) run by llama.cpp
(xllamacpp, `engine.py`).

It is a base model, not a chat model, so chat messages are flattened into a document that ends where
the wanted text starts. For the designer that is the head of a Python code block that opens
`compute_reward`, and the returned text is that head plus the completion, fenced, so code extraction
sees a whole function. The example that opens a designer document is built from the prompt's own
environment and task (its real body and joint names, and a component that measures what the task's words
ask for), and each call's log holds the exact document the model received (`details.prompt`). Of the
model's lines, only those that can run on this env are kept (`template.py`, a syntax-tree check: the code is
never run here). Good for trying the tool offline; its rewards are weak, and its replies say that it filled
a template and which of its lines were left out.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Any

from rewardsmith.llm import engine
from rewardsmith.llm.base import Completion, Model
from rewardsmith.llm.template import component_line, observation_dims, observation_lines, reads_state

MAX_TOKENS = {"designer": 384, "critic": 256, "analyzer": 256}
"""Caps on completion length. A designer call (a ~2.3k-token prompt, ~100 tokens written) took 8 s on 2 idle
cores (llama.cpp through xllamacpp: ~360 prompt tokens/s, ~40 written tokens/s), minutes while other processes
used the cores."""

CODE_HEAD = '''import numpy as np


def compute_reward(state, action, next_state):
    """Return the total reward and a dict of its named reward components."""
    components = {}
    components["'''
CODE_TAIL = """
    total = float(sum(components.values()))
    return total, components
"""
FUNC_HEAD = CODE_HEAD[: CODE_HEAD.rindex("\n") + 1]
"""The completion fills in component lines between CODE_HEAD and CODE_TAIL (a base model rarely ends
a function well on its own); only lines that `template.component_line` finds runnable on this env are kept."""

EXAMPLE_INTRO = """# Reward functions for reinforcement learning

A reward function reads the documented state through `state.body(name).pos`, `state.joint(name).qpos`,
`state.joint(name).qvel`, `state.site(name).pos`, `state.obs` and `action`, and adds named components.
For example, for this task, with the names of this environment:
"""
OFFLINE_NOTE = (
    "(The built-in offline model filled a template built from this task's own names; its rewards are weak. "
    "Use an API model for real searches.)\n"
)


def _section(text: str, title: str) -> list[str]:
    """The lines under a `## title...` or `# title` heading, up to the next heading."""
    lines, inside = [], False
    for line in text.splitlines():
        if line.startswith("#"):
            inside = line.lstrip("#").strip().startswith(title)
            continue
        if inside and line.strip():
            lines.append(line)
    return lines


def task_names(messages: list[dict[str, str]]) -> dict[str, Any]:
    """Bodies, joints (with kinds and backflip signs), sites, the sizes of `state.obs`/`goal`/`achieved_goal`
    and the task's words, read from the prompt."""
    text = "\n".join(str(m.get("content", "")) for m in messages if m.get("role") == "user")
    bodies = [
        b.split("<-")[0].strip()
        for line in _section(text, "Bodies")
        for b in line.split(",")
        if "<-" in b and not b.strip().startswith("_body_")
    ]
    joints: list[tuple[str, str, str]] = []  # (name, kind, line)
    for line in _section(text, "Joints"):
        match = re.match(r"- ([\w.-]+): (hinge|slide|free|ball)\b", line)
        if match:
            joints.append((match.group(1), match.group(2), line))
    sites = [s.strip() for line in _section(text, "Sites") for s in line.split(",") if s.strip()]
    task = " ".join(_section(text, "Task")).lower()
    arrays = {m.group(2): int(m.group(1)) for m in re.finditer(r"(\d+) dims, `state\.(obs|goal|achieved_goal)`", text)}
    if match := re.search(r"^- Observation: (\d+) dims", text, re.MULTILINE):
        arrays.setdefault("obs", int(match.group(1)))
    names = {"bodies": bodies, "joints": joints, "sites": sites, "task": task, "arrays": arrays}
    return names | {"observation": observation_dims(text)}  # labelled obs[i] of an env without a MuJoCo model


def example_lines(names: dict[str, Any]) -> list[str]:
    """The example's `components[...] = ...` lines: what the task's words ask for, with the env's real names."""
    bodies, joints, sites, task = names["bodies"], names["joints"], names["sites"], names["task"]
    root = bodies[0] if bodies else None
    lines: list[str] = []
    flip = next((j for j in joints if "backward rotation (backflip)" in j[2]), None)
    mentioned = [b for b in bodies if re.search(rf"\b{re.escape(b)}\b", task)]
    reach = any(w in task for w in ("reach", "push", "goal", "target", "distance"))
    arrays = names.get("arrays", {})
    if arrays.get("goal") and arrays.get("goal") == arrays.get("achieved_goal"):  # a goal-conditioned env
        lines.append('components["goal_distance"] = -float(np.linalg.norm(next_state.achieved_goal - next_state.goal))')
    elif flip and ("backflip" in task or "rotate backward" in task):
        sign = "-" if "makes it decrease" in flip[2] else ""
        lines.append(
            f'components["backward_spin"] = 0.1 * float(np.clip({sign}next_state.joint("{flip[0]}").qvel, -10, 10))'
        )
    elif root and ("spin" in task or "rotate" in task or "turn" in task):
        lines.append(f'components["spin"] = 0.1 * abs(float(next_state.body("{root}").angvel[2]))')
    elif root and "backward" in task:
        lines.append(f'components["backward_speed"] = -float(next_state.body("{root}").linvel[0])')
    elif sites and ("balance" in task or "upright" in task) and not reach:
        lines.append(f'components["tip_height"] = float(next_state.site("{sites[0]}").pos[2])')
    elif reach and (len(mentioned) >= 2 or (sites and len(mentioned) == 1)):
        a, b = mentioned[0], mentioned[1] if len(mentioned) > 1 else None
        target = f'next_state.body("{b}").pos[:2]' if b else f'next_state.site("{sites[0]}").pos[:2]'
        lines.append(f'components["distance"] = -float(np.linalg.norm(next_state.body("{a}").pos[:2] - {target}))')
    elif root and "one leg" not in task and any(w in task for w in ("forward", "run", "walk", "hop", "fast")):
        lines.append(f'components["forward_speed"] = float(next_state.body("{root}").linvel[0])')
    feet = [b for b in bodies if "foot" in b]
    if root and ("one leg" in task or "one foot" in task) and len(feet) >= 2:
        lines.append(
            f'components["foot_lift"] = abs(float(next_state.body("{feet[0]}").pos[2] - next_state.body("{feet[1]}").pos[2]))'
        )
    if root and not reach and not sites and any(w in task for w in ("upright", "fall", "land", "legs", "back up")):
        lines.append(f'components["height"] = 0.5 * float(next_state.body("{root}").pos[2])')
    if not lines and not bodies:  # no MuJoCo model: the task terms come from the labelled observation
        lines += observation_lines(names.get("observation", {}), task)
    if not lines and joints:
        lines.append(f'components["motion"] = 0.01 * abs(float(next_state.joint("{joints[0][0]}").qvel))')
    lines.append('components["effort"] = -0.001 * float(np.sum(np.square(action)))')
    return lines


def example_code(names: dict[str, Any]) -> str:
    """A short complete reward in the contract's shape that measures the task with the env's real names."""
    return function_code(example_lines(names))


def function_code(lines: list[str]) -> str:
    """`compute_reward` with these component lines between FUNC_HEAD and CODE_TAIL."""
    return FUNC_HEAD + "".join(f"    {line}\n" for line in lines) + CODE_TAIL.lstrip("\n")


def example_for(messages: list[dict[str, str]]) -> str:
    """The example that opens a designer document: built from this prompt's own environment and task."""
    return f"{EXAMPLE_INTRO}\n```python\n{example_code(task_names(messages))}```\n"


_HEADINGS = {"designer": None, "critic": "## Review\n\n", "analyzer": "## Analysis\n\n"}
_STOP = {
    # the function has ended once a line starts at column 0
    "designer": ["```", "\n\n", "\n    total", "\n    return", "\nif ", "\ndef ", "\n#", "\nprint", "\nclass "],
    "critic": ["```", "\n\n\n\n", "\n## "],
    "analyzer": ["```", "\n\n\n\n", "\n## "],
}
_MESSAGE_TITLES = {"system": "", "user": "## Request\n\n", "assistant": "## Previous answer\n\n"}


def flatten(messages: list[dict[str, str]]) -> str:
    """Chat messages as one markdown document, the way a base model has seen such text."""
    parts = []
    for message in messages:
        title = _MESSAGE_TITLES.get(message.get("role", "user"), "")
        parts.append(f"{title}{str(message.get('content', '')).strip()}")
    return "\n\n".join(parts)


class LocalModel(Model):
    """`local`: Gemma 3 270M through llama.cpp (`engine`), loaded once per process, generations serialized."""

    kind = "local"
    variant = hashlib.sha256(
        f"{EXAMPLE_INTRO}{OFFLINE_NOTE}example-v3 lines-v4 xllamacpp{CODE_HEAD}{CODE_TAIL}{_STOP}{MAX_TOKENS}".encode()
    ).hexdigest()[:12]

    def __init__(
        self, *, run_dir: Path | None = None, cache_dir: Path | None = None, use_cache: bool | None = None
    ) -> None:
        super().__init__("local", run_dir=run_dir, cache_dir=cache_dir, use_cache=use_cache)

    def _generate(
        self, messages: list[dict[str, str]], *, role: str, sample: int, temperature: float, max_tokens: int
    ) -> Completion:
        max_tokens = min(max_tokens, MAX_TOKENS[role])
        heading = _HEADINGS[role]
        head = example_for(messages) if heading is None else ""
        tail = f"## Solution\n\n```python\n{CODE_HEAD}" if heading is None else heading
        budget = engine.N_CTX - max_tokens - engine.tokens(f"{head}{tail}") - 8
        prompt = f"{head}\n{engine.fit(flatten(messages), budget)}\n\n{tail}"
        with engine.lock:
            result = engine.complete(
                prompt, max_tokens=max_tokens, temperature=temperature, stop=_STOP[role], seed=sample
            )
        completion = result["text"]
        if heading is None:
            code, note = close_function(completion, task_names(messages))
            text = f"{OFFLINE_NOTE}{note}```python\n{code}```\n"
        else:
            text = completion.strip()
        return Completion(
            text=text,
            prompt_tokens=result["prompt_tokens"],
            completion_tokens=result["completion_tokens"],
            # the raw completion too, so a reader sees which lines the template check left out
            details={
                "finish_reason": result["finish_reason"],
                "prompt": prompt,
                "completion": completion,
            },
        )


def close_function(completion: str, names: dict[str, Any]) -> tuple[str, str]:
    """The completion's component lines that can run on this env (`template.component_line`), closed into
    a whole `compute_reward`, and a note on what was left out. When no kept line reads the state, the
    example's lines that do are put in, and the note says so."""
    lines = f'components["{completion}'.splitlines()
    kept = [ok for line in lines if (ok := component_line(line, names))]
    dropped = sum(1 for line in lines if line.strip() and not line.strip().startswith("#")) - len(kept)
    note = f"({dropped} of its lines could not run on this environment and were left out.)\n" if dropped else ""
    if not any(reads_state(line) for line in kept):  # a reward that never reads the state measures nothing
        task_lines = [line for line in example_lines(names) if reads_state(line)]
        kept = task_lines + [line for line in kept if line not in task_lines]
        if task_lines:
            note += "(None of its lines read the state: the example's task lines were put in.)\n"
        else:  # an env without named bodies (obs-only): the template has no task term to offer
            note += "(None of its lines read the state, and the template has no task term for this env: this reward does not measure the task.)\n"
    return function_code(kept), note
