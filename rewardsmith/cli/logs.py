"""The `logs` verb: browse a run's LLM prompts and responses (like simonw/llm's `llm logs`)."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from rewardsmith.cli import app, console


@app.command()
def logs(
    run_dir: Path = typer.Argument(..., help="A run folder (runs/<task>/<stamp>/)."),
    candidate: str | None = typer.Option(
        None, "--candidate", "-c", help="Only the designer calls that wrote this candidate (id like 2.1)."
    ),
    role: str | None = typer.Option(None, "--role", help="Only calls of one role: designer, critic or analyzer."),
    count: int | None = typer.Option(None, "--count", "-n", min=1, help="Only the last N calls."),
    responses_only: bool = typer.Option(False, "--responses", "-r", help="Leave out the prompts."),
    as_json: bool = typer.Option(False, "--json", help="Print the call records as one JSON list."),
) -> None:
    """Show a run's LLM calls: each prompt and response, tokens, cost, replayed from cache or not."""
    from rewardsmith.views.logs import call_view, read_calls

    if role is not None and role not in ("designer", "critic", "analyzer"):
        raise typer.BadParameter(f"{role!r}: use designer, critic or analyzer", param_hint="--role")
    calls = read_calls(run_dir, candidate=candidate, role=role)
    if count is not None:
        calls = calls[-count:]
    if as_json:
        typer.echo(json.dumps([{"file": c.file, "candidate": c.candidate, **c.record} for c in calls], indent=2))
        return
    if not calls:
        console.print(f"no LLM calls logged in {run_dir}", highlight=False)
        return
    for call in calls:
        console.print(call_view(call, prompts=not responses_only))
        console.print()
