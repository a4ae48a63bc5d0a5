"""How numbers and untrusted text look in tables: one rule for the CLI, the live views and the review."""

from __future__ import annotations

import math
import re
from typing import Any


def cell(value: Any, digits: int = 4) -> str:
    """A table cell: '-' when missing, floats to `digits` significant digits, big numbers with separators."""
    if value is None:
        return "-"
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, float):
        value = value + 0.0  # -0.0 prints as 0
        if f"{value:.{digits}g}".lstrip("-").strip("0.") == "":
            value = 0.0  # a tiny negative number rounds to 0, not -0
        return f"{value:,.0f}" if abs(value) >= 10**digits else f"{value:.{digits}g}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


SE_CAP = 100.0
"""Gaps beyond this many standard errors print as "> +100 se": with a near-zero spread (every seed of a Meta-World
example pressed the button) the exact figure, +21,416 se, says nothing more and looks like precision."""


def se_words(gap: float) -> str:
    """A gap in standard errors, signed, to one decimal; '-' when unknown, capped at `SE_CAP`."""
    if math.isnan(gap):
        return "-"
    if abs(gap) >= SE_CAP:
        return f"> +{SE_CAP:.0f} se" if gap > 0 else f"< -{SE_CAP:.0f} se"
    return f"{gap:+.1f} se"


def plural(n: int, word: str, words: str | None = None) -> str:
    """`1 seed`, `3 seeds`, `0 errors` (`words` for irregular plurals)."""
    return f"{n:,} {word if n == 1 else (words or word + 's')}"


def mean_pm(mean: float | None, std: float | None, n: int) -> str:
    """A result with its uncertainty over `n` seeds: `0.8912 ± 0.16 std, n=3`; `0.8912, n=1` (one seed has no
    spread to show: not `± 0`); `-` when missing."""
    if mean is None:
        return "-"
    return f"{cell(float(mean))}{_spread(std, n)}, n={n}"


def _spread(std: float | None, n: int) -> str:
    return f" ± {cell(float(std or 0.0), 2)} std" if n > 1 else ""


def se_suffix(se: float | None) -> str:
    """` ± <se> s.e.` after a mean, or "" when it carries no standard error."""
    return f" ± {cell(se, 2)} s.e." if se is not None else ""


def pick_number(fitness: Any, seeds: Any) -> Any:
    """A best search fitness as the pick compared it: the mean of its seeds at its budget where it was trained on
    more than one (a summary's `best_seeds`), else its one training's."""
    numbers = [v for v in seeds if isinstance(v, int | float)] if isinstance(seeds, list) else []
    return sum(numbers) / len(numbers) if len(numbers) > 1 else fitness


def with_seeds(fitness: Any, seeds: int, digits: int = 4) -> str:
    """A fitness with "xN" after it where it is the mean of N > 1 seeds (`pick_number`): `0.912 x2`."""
    return cell(fitness, digits) + (f" x{seeds}" if seeds > 1 else "")


def search_fitness(fitness: float | None, se: float | None, seeds: list[float] | None = None) -> str:
    """The best candidate's search fitness in words: its one seed with its s.e., or the mean of the seeds it was
    trained on at its budget (the winner is trained on a second seed before it is returned) with each seed's."""
    if seeds and len(seeds) > 1:
        each = ", ".join(cell(v) for v in seeds)
        return f"{cell(pick_number(fitness, seeds))} (mean of {len(seeds)} seeds: {each}; search budget)"
    return f"{cell(fitness)}{se_suffix(se)} (one seed, search budget)"


_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def inert(text: Any, *, markup: bool = True) -> str:
    """Text from a candidate or an LLM reply (an exception message, a component name, a finding, a reason), made
    safe to print: control characters (ESC, BEL, C1, bidi overrides; not newline or tab) become visible escapes
    such as `\\x1b`, so no OSC 52 clipboard write, screen clear or OSC 8 link reaches the terminal; and, with
    `markup` (for rich strings and table cells), rich markup is escaped so `[link=...]` prints as written."""
    safe = _CONTROL.sub(
        lambda m: f"\\x{ord(m.group()):02x}" if ord(m.group()) < 256 else f"\\u{ord(m.group()):04x}", str(text)
    )
    if markup:
        from rich.markup import escape

        safe = escape(safe)
    return safe


def short_unit(unit: Any) -> str:
    """The symbol that opens a scorer's `unit` text ("m/s: mean speed of ..." -> "m/s"), or "" when it opens with
    words instead ("fraction (0 to 1) of ...")."""
    head = str(unit or "").split(":")[0].strip() if ":" in str(unit or "") else ""
    return head if head and len(head) <= 12 and " " not in head else ""


def result_line(final: Any, unit: str = "", random_fitness: Any = None) -> str | None:
    """The run's result as a newcomer reads it: `fitness 0.029 m/s ± 0.004 std, n=3 (random policy 0.004),
    success 0/15 episodes`: the final retraining's mean with the scorer's unit, the random policy's trusted fitness
    beside it, and the successful evaluation episodes of all seeds. None while there is no final mean."""
    if not isinstance(final, dict) or final.get("fitness_mean") is None:
        return None
    seeds = [s for s in final.get("seeds") or [] if isinstance(s, dict) and s.get("fitness") is not None]
    spread = _spread(final.get("fitness_std"), len(seeds))
    text = f"fitness {cell(float(final['fitness_mean']))}{f' {unit}' if unit else ''}{spread}, n={len(seeds)}"
    if isinstance(random_fitness, (int, float)):
        text += f" (random policy {cell(float(random_fitness))})"
    counted = [s for s in seeds if s.get("success_rate") is not None and s.get("episodes")]
    if counted:
        wins = round(sum(float(s["success_rate"]) * int(s["episodes"]) for s in counted))
        text += f", success {wins}/{sum(int(s['episodes']) for s in counted)} episodes"
    elif final.get("success_mean") is not None:
        text += f", success rate {cell(final['success_mean'], 2)}"
    return text
