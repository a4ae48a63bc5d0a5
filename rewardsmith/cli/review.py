"""Review verbs: `runs` (list runs), `review` (a run in the terminal), `report` (one HTML file), `export`."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from rewardsmith.cli import app, console

RunDirArg = typer.Argument(..., help="A run folder (runs/<task>/<stamp>/).")


@app.command()
def runs(
    folder: Path = typer.Argument(Path("runs"), help="Folder to search for runs and batches."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON list of runs (for scripts) instead of tables."),
) -> None:
    """List runs: status, result (the final retraining, mean ± std over seeds), best candidate, cost."""
    from rewardsmith.run_folder.index import list_runs
    from rewardsmith.views.tables import RunsTable, runs_json

    rows = list_runs(folder)
    if as_json:
        typer.echo(json.dumps(runs_json(rows), indent=2))
        return
    if not rows:
        console.print(f"no runs under {folder} (start one with `rewardsmith run TASK`)", highlight=False)
        return
    for batch in sorted({r.batch for r in rows if r.batch}):
        console.print(
            RunsTable([r for r in rows if r.batch == batch], f"batch {batch}"), crop=False
        )  # paths stay whole, past the edge if need be
    single = [r for r in rows if not r.batch]
    if single:
        console.print(RunsTable(single, f"runs in {folder}"), crop=False)  # paths stay whole, past the edge if need be


@app.command()
def review(
    run_dir: Path = RunDirArg,
    candidate: str | None = typer.Option(None, "--candidate", "-c", help="Show one candidate (id like 2.1)."),
    diff: bool = typer.Option(
        False,
        "--diff",
        help="Diff two candidates' rewards: --candidate (or the best) against its parent, "
        "or the best earlier candidate when it has none.",
    ),
    a: str | None = typer.Option(None, "--a", help="With --diff: the old candidate (default: B's parent)."),
    b: str | None = typer.Option(
        None, "--b", help="With --diff: the new candidate (default: --candidate, else the best)."
    ),
) -> None:
    """Review a run: every candidate by iteration, the best reward, one candidate, or a diff."""
    from rewardsmith.views.run_view import read_run
    from rewardsmith.views.tables import candidate_view, diff_view, review_view

    view = read_run(run_dir)
    if diff or a or b:
        console.print(diff_view(view, a, b or candidate))
    elif candidate:
        console.print(candidate_view(view, candidate))
    else:
        console.print(review_view(view))


@app.command()
def report(
    run_dir: Path = typer.Argument(..., help="A run folder, or a batch folder for a summary page across its runs."),
    videos: bool = typer.Option(True, "--videos/--no-videos", help="Record missing videos of each iteration's best."),
    open_: bool = typer.Option(False, "--open", help="Open the report in a browser when written."),
) -> None:
    """Write one self-contained HTML report (report.html, or batch_report.html for a batch)."""
    from rewardsmith.views.report import write_any_report
    from rewardsmith.views.run_view import require_run_dir

    require_run_dir(run_dir)  # the same one-line error as every verb that takes a run folder
    refused = ""
    if videos:  # recording loads candidate-written model.zip files in sandboxed workers: `run`'s preflight first
        from rewardsmith.cli.core import require_sandbox_here
        from rewardsmith.errors import SandboxError

        try:
            require_sandbox_here(None)
        except SandboxError as e:
            videos, refused = False, f"no missing video recorded: {e}"
    path, warnings = write_any_report(run_dir, videos=videos)
    warnings = [refused, *warnings] if refused else warnings
    for w in warnings:
        console.print(f"[yellow]warning:[/] {w}", highlight=False)
    console.print(f"report: {path}")
    if open_:
        import webbrowser

        webbrowser.open(path.resolve().as_uri())


@app.command()
def export(
    run_dir: Path = RunDirArg,
    to: Path = typer.Option(..., "--to", help="Folder to write reward.py and README.md into."),
    candidate: str | None = typer.Option(None, "--candidate", "-c", help="Candidate id (default: the best)."),
    force: bool = typer.Option(False, "--force", help="Replace a reward.py or README.md already in the folder."),
) -> None:
    """Export a reward as a standalone module with its provenance, and a README showing how to train with it."""
    from rewardsmith.views.export import export_reward

    path = export_reward(run_dir, to, candidate=candidate, force=force)
    console.print(f"exported {path} (see {path.parent / 'README.md'})")
