"""A distinct design emphasis per sample of a design round, so K samples are K different requests instead of one
request asked K times (temperature alone makes byte-identical prompts differ little). Sample 1 gets none (the
plain request); samples 2, 3, 4 ask for a minimal, a staged and a potential-based reward, and the cycle repeats.
The crossover sample (`--crossover`) is its own request and gets none. The emphasis given is recorded in the
candidate's folder (`emphasis.json`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Emphasis:
    """One design emphasis: a short name and the request's closing paragraph."""

    name: str
    text: str


EMPHASES = (
    Emphasis("minimal", "Write a minimal reward: at most 3 components, the task's own progress measure first."),
    Emphasis(
        "staged",
        "Write a staged reward: sub-goals in order (e.g. reach, grasp, move, hold); reward progress in the current"
        " stage only, each later stage more than all earlier ones.",
    ),
    Emphasis(
        "potential",
        "Write a potential-based reward: phi(state) grows as the task nears completion and is rewarded as"
        " phi(next_state) - phi(state) (scaled), plus at most two other terms.",
    ),
)


def emphasis_for(index: int) -> Emphasis | None:
    """The emphasis of sample `index` (1-based) of a round: none for 1, then minimal, staged, potential, none, ..."""
    k = (index - 1) % (len(EMPHASES) + 1)
    return EMPHASES[k - 1] if k else None


def with_emphasis(messages: list[dict[str, Any]], emphasis: Emphasis | None) -> list[dict[str, Any]]:
    """The messages with the emphasis appended to the last user turn (unchanged for None)."""
    if emphasis is None:
        return messages
    last = messages[-1]
    extra = f"\n\n# Design emphasis ({emphasis.name})\n{emphasis.text}"
    if isinstance(last["content"], list):  # text and image parts: the emphasis closes the text
        content = [*last["content"], {"type": "text", "text": extra.strip()}]
        return [*messages[:-1], {**last, "content": content}]
    return [*messages[:-1], {**last, "content": last["content"].rstrip() + extra}]
