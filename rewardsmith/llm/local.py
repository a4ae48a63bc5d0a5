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

The first sample of a round is not asked of the model at all: it is the closest shipped example reward adapted
to this task (`example_choice`) that the run has not tried yet. A reply whose code repeats one already in the
conversation (a repair that changed nothing) or any earlier candidate's of the run (`avoid`: every iteration, every
sample; the designer asks this model's samples in order, each told the codes of those before it) is replaced by the
next ready-made reply (`ready_made`); the reply says which it repeated. Every designer reply begins with a
`template.TEMPLATE_MARK` line saying which kind of reply it is.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Any

from rewardsmith.llm import engine
from rewardsmith.llm.base import Completion, Model
from rewardsmith.llm.code_identity import same_code
from rewardsmith.llm.example_choice import adapted_examples, direction
from rewardsmith.llm.reset_gates import reset_heights
from rewardsmith.llm.template import (
    NOT_DESIGNED,
    TEMPLATE_MARK,
    component_line,
    observation_dims,
    observation_lines,
    reads_state,
)

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
REASKS, RESEED = 2, 100_003
"""When a reply repeats tried code and no ready-made reply is left, the model is asked again up to REASKS times,
with seeds RESEED apart."""
FUNC_HEAD = CODE_HEAD[: CODE_HEAD.rindex("\n") + 1]
"""The completion fills in component lines between CODE_HEAD and CODE_TAIL (a base model rarely ends
a function well on its own); only lines that `template.component_line` finds runnable on this env are kept."""

EXAMPLE_INTRO = """# Reward functions for reinforcement learning

A reward function reads the documented state through `state.body(name).pos`, `state.joint(name).qpos`,
`state.joint(name).qvel`, `state.site(name).pos`, `state.obs` and `action`, and adds named components.
For example, for this task, with the names of this environment:
"""
OFFLINE_NOTE = (
    "(Template, not designed by a model: the built-in offline model filled a template built from this task's own "
    "names; its rewards are weak. Use an API model for real searches.)\n"
)
EXAMPLE_NOTE = "(Template, not designed by a model: {which}. Use an API model for real searches.)\n"
FILLED_MARK = f"{TEMPLATE_MARK} fixed template filled with the offline model's checked lines{NOT_DESIGNED}"


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


def split_outside_braces(line: str) -> list[str]:
    """`a, P_{b, c}, d` -> ['a', 'P_{b, c}', 'd']: the description's comma lists, braces kept whole."""
    return [item.strip() for item in re.split(r",(?![^{]*\})", line) if item.strip()]


def expand_braces(item: str) -> list[str]:
    """`P_{a, b}{c, d}` -> P_ac, P_ad, P_bc, P_bd: the product notation of a hand's grouped names."""
    names = [""]
    for part in re.split(r"(\{[^}]*\})", item.strip()):
        options = [o.strip() for o in part[1:-1].split(",")] if part.startswith("{") else [part]
        names = [n + o for n in names for o in options]
    return [n for n in names if n]


def task_names(messages: list[dict[str, str]]) -> dict[str, Any]:
    """Bodies, joints (with kinds and backflip signs), sites, the bodies' heights at the reset pose, the sizes of
    `state.obs`/`goal`/`achieved_goal`, whether the action is a discrete choice, and the task's words, read from the
    prompt."""
    text = "\n".join(str(m.get("content", "")) for m in messages if m.get("role") == "user")
    bodies = list(
        dict.fromkeys(
            name.strip()
            for line in _section(text, "Bodies")
            for chain in split_outside_braces(line)
            for name in chain.split("<-")
            if name.strip() not in ("", "world") and not name.strip().startswith("_body_")
        )
    )
    joints: list[tuple[str, str, str]] = []  # (name, kind, line)
    for line in _section(text, "Joints"):
        if match := re.match(r"- ([\w.:-]+): (hinge|slide|free|ball)\b", line):
            joints.append((match.group(1), match.group(2), line))
        elif match := re.match(r"- ([^\[]+?) \[\d+(?::\d+)?\](?:, qvel\[[^\]]*\])?:? (.*)$", line):  # a grouped row
            rest = match.group(2)
            kind = "free" if " free" in f" {rest}" else "slide" if rest.startswith("slide") else "hinge"
            likewise = re.findall(r"([\w.:-]+\{[^}]*\}) \[", rest.partition("; likewise ")[2])
            for group in (match.group(1), *likewise):
                joints += [(name, kind, line) for name in expand_braces(group)]
    sites = [s for line in _section(text, "Sites") for item in split_outside_braces(line) for s in expand_braces(item)]
    task_lines = _section(text, "Task")
    task = " ".join(task_lines).lower()
    arrays = {m.group(2): int(m.group(1)) for m in re.finditer(r"(\d+) dims, `state\.(obs|goal|achieved_goal)`", text)}
    if match := re.search(r"^- Observation: (\d+) dims", text, re.MULTILINE):
        arrays.setdefault("obs", int(match.group(1)))
    env = match.group(1).strip() if (match := re.search(r"^# Environment: (\S+)", text, re.MULTILINE)) else ""
    names = {"bodies": bodies, "joints": joints, "sites": sites, "task": task, "arrays": arrays, "env": env}
    names["reset_z"] = reset_heights(text)
    names["task_line"] = " ".join(task_lines[0].lower().split()) if task_lines else ""
    names["discrete"] = bool(re.search(r"^- Action: one of \d+ discrete choices", text, re.MULTILINE))
    ending = match.group(1) if (match := re.search(r"^- Early termination: (.*)$", text, re.MULTILINE)) else None
    names["ends_on_failure"] = ending is not None and not re.search(r"never ends early|success termination", ending)
    return names | {"observation": observation_dims(text)}  # labelled obs[i] of an env without a MuJoCo model


def root_rises(joints: list[tuple[str, str, str]]) -> bool:
    """Whether the robot's root can change height (a free joint or a vertical slide): Swimmer's and a cart's cannot."""
    return any(kind == "free" or (kind == "slide" and re.search(r"world [+-]z\b", line)) for _, kind, line in joints)


def task_term(names: dict[str, Any], reach: bool) -> str | None:
    """The one line that measures what the task's words ask for (a goal, a flip, a spin, a direction of travel, a
    balance, a distance, forward speed), or None."""
    bodies, joints, sites, task = names["bodies"], names["joints"], names["sites"], names["task"]
    root = bodies[0] if bodies else None
    flip = next((j for j in joints if "backward rotation (backflip)" in j[2]), None)
    mentioned = [b for b in bodies if re.search(rf"\b{re.escape(b)}\b", task)]
    arrays = names.get("arrays", {})
    balance = ("balance" in task or "upright" in task) and not reach
    if arrays.get("goal") and arrays.get("goal") == arrays.get("achieved_goal"):  # a goal-conditioned env
        return 'components["goal_distance"] = -float(np.linalg.norm(next_state.achieved_goal - next_state.goal))'
    if flip and ("backflip" in task or "rotate backward" in task):
        sign = "-" if "makes it decrease" in flip[2] else ""
        return f'components["backward_spin"] = 0.1 * float(np.clip({sign}next_state.joint("{flip[0]}").qvel, -10, 10))'
    if root and re.search(r"\b(spin|rotate|turn)", names.get("task_line", task)):  # the instruction, not "do not turn"
        # one way (counter-clockwise unless the words say clockwise), so that rocking to and fro earns nothing
        sign = "-" if re.search(r"(?<!counter-)(?<!counter)(?<!anti-)(?<!anti)clockwise", task) else ""
        return f'components["spin"] = 0.1 * float(np.clip({sign}next_state.body("{root}").angvel[2], -5, 5))'
    if root and (lateral := direction(names.get("task_line", "")))[0] == 1:  # to its left (+y) or right (-y)
        sign = "-" if lateral[1] < 0 else ""
        return f'components["lateral_speed"] = {sign}float(next_state.body("{root}").linvel[1])'
    if root and "backward" in task:
        return f'components["backward_speed"] = -float(next_state.body("{root}").linvel[0])'
    if sites and balance:
        return f'components["tip_height"] = float(next_state.site("{sites[0]}").pos[2])'
    if len(bodies) >= 2 and balance and not root_rises(joints):
        # a pole on a cart or a fixed base, no site at its tip: its last link's up axis (the cosine of its tilt)
        return f'components["upright"] = float(next_state.body("{bodies[-1]}").xmat[2, 2])'
    if reach and (len(mentioned) >= 2 or (sites and len(mentioned) == 1)):
        a, b = mentioned[0], mentioned[1] if len(mentioned) > 1 else None
        target = f'next_state.body("{b}").pos[:2]' if b else f'next_state.site("{sites[0]}").pos[:2]'
        return f'components["distance"] = -float(np.linalg.norm(next_state.body("{a}").pos[:2] - {target}))'
    if root and "one leg" not in task and any(w in task for w in ("forward", "run", "walk", "hop", "fast")):
        return f'components["forward_speed"] = float(next_state.body("{root}").linvel[0])'
    return None


def example_lines(names: dict[str, Any]) -> list[str]:
    """The example's `components[...] = ...` lines: what the task's words ask for, with the env's real names."""
    bodies, joints, sites, task = names["bodies"], names["joints"], names["sites"], names["task"]
    root = bodies[0] if bodies else None
    reach = any(w in task for w in ("reach", "push", "goal", "target", "distance"))
    lines = [term] if (term := task_term(names, reach)) else []
    feet = [b for b in bodies if "foot" in b]
    if root and ("one leg" in task or "one foot" in task) and len(feet) >= 2:
        lines.append(
            f'components["foot_lift"] = abs(float(next_state.body("{feet[0]}").pos[2] - next_state.body("{feet[1]}").pos[2]))'
        )
    upright_words = any(w in task for w in ("upright", "fall", "land", "legs", "back up"))
    if root and upright_words and not reach and not sites and root_rises(joints):
        lines.append(f'components["height"] = 0.5 * float(next_state.body("{root}").pos[2])')
    if not lines and not bodies:  # no MuJoCo model: the task terms come from the labelled observation
        lines += observation_lines(names.get("observation", {}), task)
        if names.get("ends_on_failure") and re.search(r"\b(as long as|balance|stay up|keep\b.*\bup)\b", task):
            # each step survived is the task: a constant a step keeps the total positive, so ending sooner never pays
            lines.append('components["alive"] = 1.0')
    if not lines and joints:
        lines.append(f'components["motion"] = 0.01 * abs(float(next_state.joint("{joints[0][0]}").qvel))')
    if not names.get("discrete"):  # a discrete action is a choice's number: its square is no effort
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
    avoids_repeats = True
    variant = hashlib.sha256(
        f"{EXAMPLE_INTRO}{OFFLINE_NOTE}{EXAMPLE_NOTE}example-v3 lines-v7 choice-v6 xllamacpp{CODE_HEAD}{CODE_TAIL}{_STOP}{MAX_TOKENS}".encode()
    ).hexdigest()[:12]

    def __init__(
        self, *, run_dir: Path | None = None, cache_dir: Path | None = None, use_cache: bool | None = None
    ) -> None:
        super().__init__("local", run_dir=run_dir, cache_dir=cache_dir, use_cache=use_cache)

    def _generate(
        self,
        messages: list[dict[str, str]],
        *,
        role: str,
        sample: int,
        temperature: float,
        max_tokens: int,
        avoid: list[str],
    ) -> Completion:
        heading = _HEADINGS[role]
        if heading is None:
            names, conversation = task_names(messages), earlier_codes(messages)
            ready = ready_made(names, [*conversation, *avoid])
            if sample % 1000 == 0 and ready:
                skipped = "; those this run already tried are skipped" if avoid else ""
                reason = f"a round's first sample is a template, the model is not asked{skipped}"
                return example_completion(*ready[0], reason=reason)
        max_tokens = min(max_tokens, MAX_TOKENS[role])
        head = example_for(messages) if heading is None else ""
        tail = f"## Solution\n\n```python\n{CODE_HEAD}" if heading is None else heading
        budget = engine.N_CTX - max_tokens - engine.tokens(f"{head}{tail}") - 8
        prompt = f"{head}\n{engine.fit(flatten(messages), budget)}\n\n{tail}"

        def generate(seed: int) -> dict[str, Any]:
            with engine.lock:
                return engine.complete(
                    prompt, max_tokens=max_tokens, temperature=temperature, stop=_STOP[role], seed=seed
                )

        result = generate(sample)
        completion = result["text"]
        details = {"finish_reason": result["finish_reason"], "prompt": prompt, "completion": completion}
        if heading is not None:
            return Completion(completion.strip(), result["prompt_tokens"], result["completion_tokens"], details=details)
        code, note = close_function(completion, names)
        repeated = repeats(code, conversation, avoid)
        for retry in range(1, REASKS + 1):  # nothing ready-made is left: the model's own other samples
            if not repeated or ready:
                break
            again = generate(sample + RESEED * retry)
            result = {**again, **{k: result[k] + again[k] for k in ("prompt_tokens", "completion_tokens")}}
            details |= {f"completion_{retry + 1}": again["text"]}
            code, note = close_function(again["text"], names)
            repeated = repeats(code, conversation, avoid)
        if repeated and ready:
            reason = f"the model's reply repeated {repeated}"
            return example_completion(*ready[0], reason=reason, spent=result, details=details)
        if repeated:  # no code at all rather than code the run already had
            text = f"(No new code: the model's {REASKS + 1} replies repeat {repeated}, and this run has tried every ready-made reply.)\n"
            return Completion(text, result["prompt_tokens"], result["completion_tokens"], details=details)
        return Completion(
            text=f"{OFFLINE_NOTE}{note}```python\n{FILLED_MARK}\n{code}```\n",
            prompt_tokens=result["prompt_tokens"],
            completion_tokens=result["completion_tokens"],
            # the raw completion too, so a reader sees which lines the template check left out
            details=details,
        )


def ready_made(names: dict[str, Any], tried: list[str]) -> list[tuple[str, str]]:
    """(code, which) of every reply that needs no model and is not among `tried`, best first: the shipped examples
    adapted to this task (closest first), then the description templates (`description_templates`)."""
    found = adapted_examples(names, names.get("env", ""), names.get("task_line", "")) + description_templates(names)
    fresh: list[tuple[str, str]] = []
    for code, which in found:
        if not any(same_code(code, earlier) for earlier in [*tried, *(c for c, _ in fresh)]):
            fresh.append((code, which))
    return fresh


def description_templates(names: dict[str, Any]) -> list[tuple[str, str]]:
    """The template filled from the description's names and the task's words (`example_lines`), when it measures
    the task, and its variants: with or without the effort term, with or without the progress of each position-like
    task term (its change over the step, a potential-based shaping term)."""
    lines = example_lines(names)
    if not any(reads_state(line) for line in lines):
        return []
    task_lines = [line for line in lines if reads_state(line)]
    progress = [progress_line(line) for line in task_lines if not re.search(r"speed|spin|vel", line)]
    variants = [
        (lines, "fixed template filled from the description's names and the task's words"),
        (task_lines, "the same template with the task's terms alone (no effort term)"),
        (lines + progress, "the same template with each position-like task term's progress over the step"),
        (task_lines + progress, "the same template's task terms and their progress over the step"),
    ]
    return [
        (f"{TEMPLATE_MARK} {which}{NOT_DESIGNED}\n{function_code(body)}", which) for body, which in variants if body
    ]


def progress_line(line: str) -> str:
    """`components["x"] = EXPR(next_state)` as `components["x_progress"] = 10.0 * (EXPR(next_state) - EXPR(state))`."""
    name, _, expr = line.partition(" = ")
    before = re.sub(r"\bnext_state\.", "state.", expr)
    return f'{name[:-2]}_progress"] = 10.0 * (({expr}) - ({before}))'


def example_completion(
    code: str, which: str, *, reason: str, spent: dict[str, Any] | None = None, details: dict[str, Any] | None = None
) -> Completion:
    """The reply that hands back an adapted example (`reason`: why no model reply is used)."""
    return Completion(
        text=f"{EXAMPLE_NOTE.format(which=which)}({reason}.)\n```python\n{code}```\n",
        prompt_tokens=spent["prompt_tokens"] if spent else 0,
        completion_tokens=spent["completion_tokens"] if spent else 0,
        details={**(details or {}), "template": which},
    )


def earlier_codes(messages: list[dict[str, str]]) -> list[str]:
    """The code blocks of the conversation's earlier assistant turns (what was already tried)."""
    found = []
    for m in messages:
        if m.get("role") == "assistant":
            found += re.findall(r"```python\n(.*?)```", str(m.get("content", "")), re.DOTALL)
    return found


def repeats(code: str, conversation: list[str], avoid: list[str]) -> str:
    """What `code` repeats, in words ("code already in this conversation", "an earlier candidate's code of this
    run"), or "" when it is new."""
    if any(same_code(code, earlier) for earlier in conversation):
        return "code already in this conversation"
    if any(same_code(code, earlier) for earlier in avoid):
        return "an earlier candidate's code of this run"
    return ""


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
