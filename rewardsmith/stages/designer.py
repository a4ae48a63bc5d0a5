"""The designer: prompts the LLM for reward functions, samples K of them in parallel, extracts their code,
and asks for repairs with the exact findings when a candidate cannot be used.

Prompts are the Jinja2 templates in `prompts/`: `system.j2` (role, reward contract, shaping guidance) and
`designer.j2` (environment description, the task with its success condition and fitness unit). From
iteration 2 on the conversation is Eureka's: that first request, the best candidate's own reply as an
assistant turn, then `feedback.j2` (what training it showed, the top and bottom candidates as diffs against
it, the history table) with `reflection.j2` (what each signal means and what to do about it). `repair.j2`
asks for a fix. A reply cut off inside its code block is asked again with twice the token cap.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from rewardsmith.errors import ExtractionError, RewardsmithError
from rewardsmith.llm import Model
from rewardsmith.reward.progress import BONUS_COMPONENT, PROGRESS_CONTRACT
from rewardsmith.stages.extract import dedupe, extract_reward_code, is_cut_off
from rewardsmith.stages.human_feedback import Feedback
from rewardsmith.stages.prompts import render
from rewardsmith.stages.visual_feedback import with_images
from rewardsmith.stages.worked_example import worked_example
from rewardsmith.task import TaskSpec, make_scorer

Messages = list[dict[str, Any]]
"""Chat messages; a content is a string, or a list of text and image parts (`stages.visual_feedback`)."""
MIN_MAX_TOKENS = 4096
"""The least completion cap of a designer request: room for a component-by-component analysis and the code."""
CUT_OFF_RETRIES = 1
NEVER_ENDS_EARLY = re.compile(r"^- Early termination: (?:[^:\n]*: )?never ends early", re.MULTILINE)
"""The description's line for an env that never ends an episode early: the system prompt then leaves out its
guidance on early termination."""
DISCRETE_ACTION = re.compile(r"^- Action: one of \d+ discrete choices", re.MULTILINE)
"""The description's line for a discrete action: the worked example must then not read an action array."""


@dataclass
class Best:
    """The best candidate so far, as the designer shows it."""

    id: str
    code: str
    fitness: float
    success_rate: float | None
    feedback: str
    reply: str | None = None
    """The model's whole reply that produced this code (reasoning and code), kept as an assistant turn."""
    images: list[dict[str, Any]] = field(default_factory=list)
    """Frames of its best and worst evaluation episodes as image content parts (`--visual-feedback`), or []."""


@dataclass
class HistoryRow:
    """One line of the history table: a candidate tried, and how it scored."""

    id: str
    parent: str | None
    status: str
    fitness: str
    success: str
    flags: str


@dataclass
class Neighbour:
    """Another trained candidate, shown as a diff against the best with its fitness and component stats."""

    id: str
    rank: str
    """"top" or "bottom"."""
    fitness: float
    success_rate: float | None
    diff: str
    components: str


@dataclass
class Failure:
    """Why a candidate of a failed round could not be trained."""

    id: str
    reason: str


@dataclass
class Design:
    """One designer answer: the reply, its code (or why it has none), and what it cost."""

    text: str
    code: str | None
    error: str | None
    tokens: int
    cost_usd: float
    cached: bool = False
    messages: Messages = field(default_factory=list)
    """The conversation that produced it (the base of a repair request)."""
    latency_s: float = 0.0
    """Seconds the model took to answer (every request of it; ~0 when replayed)."""
    avoid: list[str] = field(default_factory=list)
    """Code of the run the model was told not to repeat (`Model.avoids_repeats`); a repair adds its round's."""


def fitness_unit(spec: TaskSpec) -> str | None:
    """The unit and direction the spec's scorer declares (`unit`), or None; the scorer's code stays hidden."""
    try:
        unit = getattr(make_scorer(spec), "unit", None)
    except (RewardsmithError, ImportError, AttributeError):
        return None
    return unit if isinstance(unit, str) and unit.strip() else None


def task_text(spec: TaskSpec) -> str:
    """The task as every stage shows it: the description, when it counts as done, and the fitness unit."""
    lines = [spec.description.strip()]
    if spec.success:
        lines.append(f"Success: {spec.success.strip()}")
    unit = fitness_unit(spec)
    if unit:
        lines.append(f"Fitness (the trusted score of the trained policy; code hidden): {unit}.")
    return "\n".join(lines)


def progress_context() -> dict[str, str]:
    """What the system prompt's progress section names: the contract and the bonus component."""
    return {"contract": PROGRESS_CONTRACT, "component": BONUS_COMPONENT}


class Designer:
    """Writes reward candidates for one task with one model."""

    def __init__(
        self,
        model: Model | None,
        spec: TaskSpec,
        env_description: str,
        *,
        temperature: float = 1.0,
        max_tokens: int = 2048,
        progress: bool = False,
    ) -> None:
        """`model` may be None to build prompts only (`rewardsmith prompt`); asking then raises. `progress`: the
        progress strategy is on, so the system prompt asks for `progress(state)` too."""
        self.model, self.spec, self.env_description = model, spec, env_description
        self.progress = progress
        self.temperature, self.max_tokens = temperature, max(max_tokens, MIN_MAX_TOKENS)

    def prompt(
        self,
        *,
        best: Best | None = None,
        history: list[HistoryRow] | None = None,
        failures: list[Failure] | None = None,
        neighbours: list[Neighbour] | None = None,
        human: list[Feedback] | None = None,
    ) -> Messages:
        """The chat messages of one iteration's designer request.

        Iteration 1: system, user. Later: system, user (the same first request), assistant (the best
        candidate's reply, or its code when the reply is not on record), user (feedback and reflection).
        """
        task = task_text(self.spec)
        discrete = bool(DISCRETE_ACTION.search(self.env_description))
        first = render(
            "designer.j2",
            env_description=self.env_description.strip(),
            task=task,
            failures=[] if best else failures or [],
            # from iteration 2 its own reward is the example
            example=None if best else worked_example(self.spec, discrete=discrete),
        )
        system = render(
            "system.j2",
            progress=progress_context() if self.progress else None,
            terminates=not NEVER_ENDS_EARLY.search(self.env_description),
        )
        messages = [{"role": "system", "content": system}, {"role": "user", "content": first}]
        if best is None:
            return messages
        reply = best.reply if best.reply and best.code.strip() in best.reply else f"```python\n{best.code.strip()}\n```"
        feedback = render(
            "feedback.j2",
            best=best,
            neighbours=neighbours or [],
            history=history or [],
            failures=failures or [],
            human=human or [],
            reflection=render("reflection.j2"),
        )
        turn = {"role": "user", "content": with_images(feedback, best.images)}
        return [*messages, {"role": "assistant", "content": reply.strip()}, turn]

    def crossover(self, first: Best, second: Best) -> Messages:
        """REvolve-style crossover: the system prompt, then one user turn with the task and environment (the first
        request) followed by both parents (code, fitness, what their training showed) and the request to combine
        their components into one reward."""
        system, opening = self.prompt()
        request = render("crossover.j2", first=first, second=second)
        return [system, {"role": "user", "content": f"{opening['content']}\n\n{request}"}]

    def sample(
        self,
        messages: Messages,
        samples: list[int],
        on_done: Callable[[int, Design], None] | None = None,
        each: dict[int, Messages] | None = None,
        avoid: list[str] | None = None,
    ) -> list[Design]:
        """One answer per sample number, requested in parallel (the sample number keeps cache keys apart);
        `on_done(sample, design)` is called as each answer arrives; `each`: a sample's own messages, if any.
        `avoid`: every earlier candidate's code of the run. A model that `avoids_repeats` (the built-in one, whose
        generations are serial anyway) is asked in sample order instead, each sample told the codes before it."""
        if not samples:
            return []
        avoid = list(avoid or [])

        def ask(k: int, before: list[Design]) -> Design:
            told = [*avoid, *(d.code for d in before if d.code is not None)]
            design = self._ask((each or {}).get(k, messages), k, told)
            if on_done is not None:
                on_done(k, design)
            return design

        designs: list[Design] = []
        if self.model is not None and self.model.avoids_repeats:
            for k in samples:
                designs.append(ask(k, designs))
        else:
            with ThreadPoolExecutor(max_workers=len(samples), thread_name_prefix="designer") as pool:
                designs = list(pool.map(lambda k: ask(k, []), samples))
        round_codes = [d.code for d in designs if d.code is not None]
        for design in designs:  # a repair must not bring back a sibling's code either
            design.avoid = [*avoid, *round_codes]
        return designs

    def repair(self, previous: Design, problems: str, sample: int) -> Design:
        """Ask for a corrected module: the conversation so far, the reply, then the exact problems found (the
        model told the run's codes the reply was told, and the reply's own)."""
        request = render("repair.j2", problems=(problems.strip() + attribute_hints(problems)), code=previous.code)
        messages = [
            *previous.messages,
            {"role": "assistant", "content": previous.text},
            {"role": "user", "content": request},
        ]
        own = [previous.code] if previous.code is not None else []
        return self._ask(messages, sample, [*previous.avoid, *own])

    def _ask(self, messages: Messages, sample: int, avoid: list[str] | None = None) -> Design:
        """One request (`avoid`: the run's codes the model must not repeat); a reply cut off inside its code block
        is asked again with twice the cap."""
        if self.model is None:
            raise ValueError("this Designer has no model: it can build prompts only")
        avoid = list(avoid or [])
        cap, tokens, cost, latency = self.max_tokens, 0, 0.0, 0.0
        for attempt in range(CUT_OFF_RETRIES + 1):
            response = self.model.complete(
                messages, role="designer", sample=sample, temperature=self.temperature, max_tokens=cap, avoid=avoid
            )
            tokens += response.prompt_tokens + response.completion_tokens
            cost += response.cost_usd
            latency += response.latency_s
            if not is_cut_off(response.text) or attempt == CUT_OFF_RETRIES:
                break
            cap *= 2
        try:
            code, error = extract_reward_code(response.text), None
        except ExtractionError as e:
            code, error = None, str(e)
        return Design(
            text=response.text,
            code=code,
            error=error,
            tokens=tokens,
            cost_usd=cost,
            cached=response.cached,
            messages=messages,
            latency_s=latency,
            avoid=avoid,
        )


def attribute_hints(problems: str) -> str:
    """For each `'Body' object has no attribute 'vel'`-style error about a State API class in `problems`, a line
    naming the attributes that class has (read from the class itself)."""
    import re

    from rewardsmith.reward import state as api

    lines = []
    for cls in sorted(set(re.findall(r"'(State|Body|Joint|Site|Contact)' object has no attribute", problems))):
        names = sorted(n for n in dir(getattr(api, cls)) if not n.startswith("_") and n not in ("count", "index"))
        lines.append(f"- A `{cls}` has these attributes and methods: {', '.join(names)}.")
    return ("\n" + "\n".join(lines)) if lines else ""


def is_duplicate(code: str, earlier: list[str]) -> bool:
    """Whether `code` equals one of `earlier` up to whitespace and comments."""
    return len(dedupe([*earlier, code])) == len(dedupe(earlier))
