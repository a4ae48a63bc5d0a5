"""The prompt templates (Jinja2, shipped as package data) and the one renderer every stage uses.

Templates: `system.j2` (the designer's role, the contract and shaping guidance), `designer.j2` (the
environment, the task with its success condition and fitness unit), `feedback.j2` (what the last iteration
taught: the best's analysis, other candidates as diffs, the history), `reflection.j2` (what each signal
means and what to do about it), `repair.j2` (a rejected attempt's findings), `crossover.j2` (`--crossover`: the two best candidates, to combine), `critic.j2` (the semantic
review, with the smoke run's values), `analyzer.j2` (the optional LLM summary of a training run, with the
code and the environment).
"""

from __future__ import annotations

from functools import cache
from importlib import resources
from typing import Any

import jinja2

from rewardsmith.reward.contract import CONTRACT


@cache
def _environment() -> jinja2.Environment:
    folder = resources.files(__name__)
    loader = jinja2.FunctionLoader(lambda name: (folder / name).read_text(encoding="utf-8"))
    return jinja2.Environment(
        loader=loader,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
    )


def render(name: str, **context: Any) -> str:
    """Render a template of this folder; a missing variable is an error, not an empty string."""
    return _environment().get_template(name).render(contract=CONTRACT, **context).strip() + "\n"
