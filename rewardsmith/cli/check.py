"""The `check` verb: run the critic's static and dynamic stages on one reward file."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import typer
from rich.table import Table

from rewardsmith.cli import app, console
from rewardsmith.cli.core import SandboxMinimumOpt, TaskArg, require_sandbox_here, usable_reward_file, work_folder
from rewardsmith.formatting import cell, inert, plural
from rewardsmith.run_folder.names import REWARD_FILE


@app.command()
def check(
    task: str = TaskArg,
    reward: Path = typer.Argument(..., help="The reward file to check (defines compute_reward)."),
    as_json: bool = typer.Option(
        False, "--json", help='Print only {"accepted": bool, "findings": [finding, ]} as JSON (same exit codes).'
    ),
    timeout: float = typer.Option(120.0, min=1, help="Seconds before the smoke worker is killed."),
    out: Path | None = typer.Option(
        None, help="Folder to keep the critic's files in (default: a temporary folder, removed)."
    ),
    sandbox_minimum: str | None = SandboxMinimumOpt,
) -> None:
    """Check a reward file without training: the AST policy, then a sandboxed smoke run on real states.

    Exit 0 when accepted, 1 when rejected (a table of findings), 2 when the input is unusable (no such file, a
    folder, a syntax error, no `compute_reward(state, action, next_state)`, a bad task), or this machine lacks a
    sandbox layer that `--sandbox-minimum` requires (as `run` refuses): one line on stderr (and with --json,
    {"accepted": false, "error": "<reason>"} on stdout).
    """
    from rewardsmith.errors import RewardsmithError
    from rewardsmith.stages.critic import critique
    from rewardsmith.task import load_task, make_env, make_scorer
    from rewardsmith.workers.executor import LocalExecutor

    try:
        spec = load_task(task)
        make_env(spec).close()  # an env that cannot be built is unusable input, before any folder is made
        make_scorer(spec)  # so is a misspelt scorer class or argument
        usable_reward_file(reward)
        require_sandbox_here(sandbox_minimum)  # the reward's code runs in the smoke worker: same preflight as `run`
    except RewardsmithError as e:
        if as_json:
            typer.echo(json.dumps({"accepted": False, "error": str(e)}))
        raise
    executor = LocalExecutor(workers=1)
    try:
        with work_folder(out, "check") as folder:
            shutil.copyfile(reward, folder / REWARD_FILE)
            report = critique(
                spec,
                folder / REWARD_FILE,
                folder,
                model=None,  # no semantic review
                executor=executor,
                env_description=None,
                semantic=False,
                timeout_s=timeout,
            )
    finally:
        executor.shutdown()
    if as_json:
        typer.echo(json.dumps({"accepted": report.accepted, "findings": report.to_dict()["findings"]}))
        raise typer.Exit(0 if report.accepted else 1)
    if report.findings:
        table = Table("severity", "stage", "code", "line", "message", title=f"{reward}: findings")
        table.columns[4].overflow = "fold"
        for f in report.findings:
            color = "red" if f.severity == "error" else "yellow"
            table.add_row(f"[{color}]{f.severity}[/]", f.stage, inert(f.code), cell(f.line), inert(f.message))
        console.print(table)
    dynamic = report.stats.get("dynamic") or {}
    if dynamic.get("components"):
        table = Table(
            "component", "min", "mean", "max", title=f"components on {dynamic.get('evaluated')} sampled transitions"
        )
        table.columns[0].no_wrap = True
        for name, s in {"(total)": dynamic.get("total") or {}, **dynamic["components"]}.items():
            table.add_row(inert(name), cell(s.get("min")), cell(s.get("mean")), cell(s.get("max")))
        console.print(table)
        t = dynamic.get("time_ms") or {}
        console.print(f"time per call: median {cell(t.get('median'))} ms, max {cell(t.get('max'))} ms")
        rollouts = dynamic.get("shuttle_rollouts")
        if rollouts is not None:
            console.print(
                f"shuttle check: {plural(rollouts, 'random-action rollout')} played backwards and held still"
                if rollouts
                else "shuttle check: not run here (no MuJoCo model, or an observation its state does not determine)"
            )
    verdict = "[green]accepted[/]" if report.accepted else "[red]rejected[/]"
    where = f"details in {out}" if out else "pass --out DIR to keep the critic's files"
    console.print(
        f"{verdict} ({plural(len(report.errors), 'error')}, {plural(len(report.warnings), 'warning')}); {where}",
        highlight=False,
    )
    raise typer.Exit(0 if report.accepted else 1)
