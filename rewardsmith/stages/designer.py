"""The designer: prompts the LLM for reward functions, samples K of them in parallel, extracts their code,
and asks for repairs with the exact findings when a candidate cannot be used.

Prompts are the Jinja2 templates in `prompts/`: `system.j2` (role and reward contract), `designer.j2`
(environment description and task; from iteration 2 on it includes `feedback.j2`: the best reward so
far, what training with it showed, and a history table of every candidate tried) and `repair.j2`.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from rewardsmith.errors import ExtractionError
from rewardsmith.llm import Model
from rewardsmith.stages.extract import dedupe, extract_reward_code
from rewardsmith.stages.prompts import render
from rewardsmith.task import TaskSpec

Messages = list[dict[str, str]]


@dataclass
class Best:
    """The best candidate so far, as the designer shows it."""

    id: str
    code: str
    fitness: float
    success_rate: float | None
    feedback: str


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


class Designer:
    """Writes reward candidates for one task with one model."""

    def __init__(
        self, model: Model, spec: TaskSpec, env_description: str, *, temperature: float = 1.0, max_tokens: int = 2048
    ) -> None:
        self.model, self.spec, self.env_description = model, spec, env_description
        self.temperature, self.max_tokens = temperature, max_tokens

    def prompt(
        self,
        *,
        best: Best | None = None,
        history: list[HistoryRow] | None = None,
        failures: list[Failure] | None = None,
    ) -> Messages:
        """The chat messages of one iteration's designer request."""
        user = render(
            "designer.j2",
            env_description=self.env_description.strip(),
            task=self.spec.description.strip(),
            best=best,
            history=history or [],
            failures=failures or [],
        )
        return [{"role": "system", "content": render("system.j2")}, {"role": "user", "content": user}]

    def sample(self, messages: Messages, samples: list[int]) -> list[Design]:
        """One answer per sample number, requested in parallel (the sample number keeps cache keys apart)."""
        if not samples:
            return []
        with ThreadPoolExecutor(max_workers=len(samples), thread_name_prefix="designer") as pool:
            return list(pool.map(lambda k: self._ask(messages, k), samples))

    def repair(self, previous: Design, problems: str, sample: int) -> Design:
        """Ask for a corrected module: the conversation so far, the reply, then the exact problems found."""
        request = render("repair.j2", problems=problems.strip(), code=previous.code)
        messages = [
            *previous.messages,
            {"role": "assistant", "content": previous.text},
            {"role": "user", "content": request},
        ]
        return self._ask(messages, sample)

    def _ask(self, messages: Messages, sample: int) -> Design:
        response = self.model.complete(
            messages, role="designer", sample=sample, temperature=self.temperature, max_tokens=self.max_tokens
        )
        try:
            code, error = extract_reward_code(response.text), None
        except ExtractionError as e:
            code, error = None, str(e)
        return Design(
            text=response.text,
            code=code,
            error=error,
            tokens=response.prompt_tokens + response.completion_tokens,
            cost_usd=response.cost_usd,
            cached=response.cached,
            messages=messages,
        )


def is_duplicate(code: str, earlier: list[str]) -> bool:
    """Whether `code` equals one of `earlier` up to whitespace and comments."""
    return len(dedupe([*earlier, code])) == len(dedupe(earlier))
