"""The `check` verb: run the critic's static and dynamic stages on one reward file."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import typer
from rich.table import Table

from rewardsmith.cli import app, console
from rewardsmith.cli.core import TaskArg
from rewardsmith.formatting import cell


@app.command()
def check(
    task: str = TaskArg,
    reward: Path = typer.Argument(..., help="The reward file to check (defines compute_reward)."),
    as_json: bool = typer.Option(False, "--json", help='Print only {"accepted": bool, "findings": [...]} as JSON.'),
    timeout: float = typer.Option(120.0, min=1, help="Seconds before the smoke worker is killed."),
    out: Path | None = typer.Option(None, help="Output folder (default: a new folder under runs/<task>/check/)."),
) -> None:
    """Check a reward file without training: the AST policy, then a sandboxed smoke run on real states.

    Exit 0 when accepted, 1 when rejected (errors), 2 on a usage error.
    """
    from rewardsmith.reward.contract import read_reward_source
    from rewardsmith.run_folder.claim import RUNS_DIR, claim_dir, new_run_dir
    from rewardsmith.stages.critic import critique
    from rewardsmith.task import load_task

    spec = load_task(task)
    read_reward_source(reward)  # a missing file is a usage error, before any folder is made
    folder = claim_dir(out) if out else new_run_dir(RUNS_DIR / spec.name, "check")
    shutil.copyfile(reward, folder / "reward.py")
    report = critique(spec, folder / "reward.py", folder, semantic=False, timeout_s=timeout)
    if as_json:
        typer.echo(json.dumps({"accepted": report.accepted, "findings": report.to_dict()["findings"]}))
        raise typer.Exit(0 if report.accepted else 1)
    if report.findings:
        table = Table("severity", "stage", "code", "line", "message", title=f"{reward}: findings")
        for f in report.findings:
            color = "red" if f.severity == "error" else "yellow"
            table.add_row(f"[{color}]{f.severity}[/]", f.stage, f.code, cell(f.line), f.message)
        console.print(table)
    dynamic = report.stats.get("dynamic") or {}
    if dynamic.get("components"):
        table = Table(
            "component", "min", "mean", "max", title=f"components on {dynamic.get('evaluated')} sampled transitions"
        )
        for name, s in {"(total)": dynamic.get("total") or {}, **dynamic["components"]}.items():
            table.add_row(name, cell(s.get("min")), cell(s.get("mean")), cell(s.get("max")))
        console.print(table)
        t = dynamic.get("time_ms") or {}
        console.print(f"time per call: median {cell(t.get('median'))} ms, max {cell(t.get('max'))} ms")
    verdict = "[green]accepted[/]" if report.accepted else "[red]rejected[/]"
    console.print(f"{verdict} ({len(report.errors)} error(s), {len(report.warnings)} warning(s)); details in {folder}")
    raise typer.Exit(0 if report.accepted else 1)
