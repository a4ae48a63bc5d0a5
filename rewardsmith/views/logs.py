"""`rewardsmith logs`: browse a run's LLM calls (prompts and responses) from its call log under `llm/`.

Each call record (`llm/NNNN_<role>.json`, written by `rewardsmith.llm.log`) holds the request's messages, the
response, tokens, cost and whether it was replayed from a cache. Designer calls carry the candidate's sample number
(`iteration * 1000 + index - 1`), so `--candidate 2.1` picks the calls that designed and repaired candidate 2.1.

    for call in read_calls(Path("runs/hopper-hop/<stamp>"), candidate="2.1"):
        console.print(call_view(call))
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.text import Text

from rewardsmith.errors import RunFolderError
from rewardsmith.formatting import inert
from rewardsmith.run_folder.records import read_object
from rewardsmith.views.run_view import require_run_dir


@dataclass
class Call:
    """One logged LLM call."""

    file: str
    record: dict[str, Any]

    @property
    def candidate(self) -> str | None:
        """The candidate a designer call wrote (from its sample number), else None."""
        sample = self.record.get("sample")
        if self.record.get("role") != "designer" or not isinstance(sample, int) or sample < 1000:
            return None
        return f"{sample // 1000}.{sample % 1000 + 1}"


def read_calls(run_dir: Path, *, candidate: str | None = None, role: str | None = None) -> list[Call]:
    """The run's calls in order, optionally only one candidate's designer calls or one role's calls."""
    run_dir = require_run_dir(run_dir)
    llm = run_dir / "llm"
    if not llm.is_dir():
        raise RunFolderError(f"{run_dir}: no LLM call log (no llm/ folder inside; is this a run folder?)")
    calls = []  # the text is shown through `inert`: a reply (or a replayed cache entry) may carry escapes
    for path in sorted(llm.glob("[0-9]*_*.json")):
        record = read_object(path)
        if record is not None:
            calls.append(Call(file=f"llm/{path.name}", record=record))
    if role:
        calls = [c for c in calls if c.record.get("role") == role]
    if candidate:
        known = sorted({c.candidate for c in calls if c.candidate}, key=lambda s: tuple(map(int, s.split("."))))
        calls = [c for c in calls if c.candidate == candidate]
        if not calls:
            raise RunFolderError(
                f"{run_dir}: no LLM call for candidate {candidate!r} (candidates with calls: {', '.join(known) or 'none'})"
            )
    return calls


def call_summary(call: Call) -> dict[str, Any]:
    """The call's facts without its messages (for `--json` lists and headers)."""
    r = call.record
    return {
        "file": call.file,
        "number": r.get("number"),
        "time": r.get("time"),
        "role": r.get("role"),
        "candidate": call.candidate,
        "model": r.get("model"),
        "prompt_tokens": r.get("prompt_tokens"),
        "completion_tokens": r.get("completion_tokens"),
        "cost_usd": r.get("cost_usd"),
        "replayed": bool(r.get("cached")),
        "error": r.get("error"),
    }


def call_header(call: Call) -> Text:
    """`#3 designer · candidate 1.2 · 2026-01-01T12:00:00 · 1,200 + 340 tokens · replayed from cache`."""
    s = call_summary(call)
    text = Text(inert(f"#{s['number']} {s['role']}", markup=False), style="bold")
    if s["candidate"]:
        text.append(f" · candidate {s['candidate']}")
    text.append(inert(f" · {s['time']} · {s['model']}", markup=False))
    text.append(f" · {int(s['prompt_tokens'] or 0):,} + {int(s['completion_tokens'] or 0):,} tokens")
    if s["replayed"]:
        text.append(" · replayed from cache (not paid again)", style="cyan")
    elif s["cost_usd"]:
        text.append(f" · ${float(s['cost_usd']):.4f}")
    if s["error"]:
        text.append(inert(f" · error: {s['error']}", markup=False), style="red")
    return text


def call_view(call: Call, *, prompts: bool = True) -> RenderableType:
    """One call: header, the messages sent (unless `prompts=False`), the response."""
    parts: list[RenderableType] = [call_header(call)]
    if prompts:
        for message in call.record.get("messages") or []:
            if isinstance(message, dict):
                parts.append(
                    Panel(
                        Text(inert(message.get("content", ""), markup=False)),
                        title=Text(inert(f"{message.get('role', '?')} message", markup=False)),
                        title_align="left",
                        border_style="dim",
                    )
                )
    response = call.record.get("response")
    parts.append(
        Panel(
            Text(inert(response, markup=False)) if response is not None else Text("(no response)", style="red"),
            title="response",
            title_align="left",
            border_style="green" if response is not None else "red",
        )
    )
    return Group(*parts)
