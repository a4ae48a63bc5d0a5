"""Core verbs: `tasks`, `describe`, `train`, `baseline`, `doctor`."""

from __future__ import annotations

import shutil
from pathlib import Path

import typer
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table

from rewardsmith.cli import app, console
from rewardsmith.errors import RewardFileError, RewardsmithError
from rewardsmith.formatting import cell

TaskArg = typer.Argument(..., help="A task spec name (see `rewardsmith tasks`) or a path to a .toml file.")


def training_progress() -> Progress:
    """The progress bar used while a worker trains."""
    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        TextColumn("{task.completed:,.0f}/{task.total:,.0f} steps"),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=console,
        transient=False,
    )


@app.command()
def tasks(folder: Path | None = typer.Option(None, help="Folder of task specs (default: the shipped envs/).")) -> None:
    """List the task specs: name, environment and the first line of the description."""
    from rewardsmith.task import ENVS_DIR, list_tasks

    table = Table("name", "env", "task", title=f"tasks in {folder or ENVS_DIR}")
    for spec in list_tasks(folder or ENVS_DIR):
        table.add_row(spec.name, spec.env, spec.summary)
    console.print(table)


@app.command()
def describe(task: str = TaskArg) -> None:
    """Print the environment description the LLM sees for a task (exactly that text)."""
    from rewardsmith.stages.env_description import describe as describe_task
    from rewardsmith.task import load_task

    typer.echo(describe_task(load_task(task)))


@app.command()
def train(
    task: str = TaskArg,
    reward: Path = typer.Argument(..., help="The reward file (defines compute_reward)."),
    timesteps: int | None = typer.Option(None, min=1, help="Env steps (default: the spec's train.timesteps)."),
    seed: int = typer.Option(0, help="Random seed."),
    device: str = typer.Option("cpu", help="cpu, cuda or auto (passed to SB3)."),
    out: Path | None = typer.Option(None, help="Output folder (default: a new folder under runs/<task>/train/)."),
) -> None:
    """Train a policy on TASK with a reward file in a sandboxed worker and report its fitness."""
    from rewardsmith.reward.contract import require_static_ok
    from rewardsmith.run_folder.claim import RUNS_DIR, claim_dir, new_run_dir
    from rewardsmith.search.baselines import load_cached, normalized_score
    from rewardsmith.task import load_task, make_env
    from rewardsmith.workers.job import WorkerJob
    from rewardsmith.workers.run import run_job

    spec = load_task(task)
    make_env(spec).close()  # an unknown env id fails here, before any work
    require_static_ok(reward)
    folder = claim_dir(out) if out else new_run_dir(RUNS_DIR / spec.name, "train")
    shutil.copyfile(reward, folder / "reward.py")
    steps = timesteps or spec.train.timesteps
    job = WorkerJob(
        task_path=spec.source,
        reward_path=folder / "reward.py",
        out_dir=folder,
        timesteps=steps,
        seed=seed,
        device=device,
    )
    console.print(
        f"training [bold]{spec.name}[/] with {reward} ({spec.train.algo}, {steps:,} steps, seed {seed}) -> {folder}"
    )
    with training_progress() as progress:
        bar = progress.add_task(spec.name, total=steps)
        result = run_job(job, on_progress=lambda done, total: progress.update(bar, completed=done, total=total))
        if result.ok:
            progress.update(bar, completed=steps)
    if result.status == "rejected":
        raise RewardFileError(f"{reward}: {result.error}")
    if not result.ok:
        raise RewardsmithError(f"training failed: {result.error} (log: {folder / 'worker.log'})")
    s = result.summary
    baseline = load_cached(spec, steps)
    table = Table(
        "fitness",
        "success rate",
        "human-normalised",
        "episode length",
        "timesteps",
        "wall s",
        title=f"{spec.name}: {reward.name}",
    )
    table.add_row(
        cell(s.get("fitness")),
        cell(s.get("success_rate")),
        cell(normalized_score(spec, s.get("fitness"), baseline)),
        cell(s.get("ep_len")),
        cell(s.get("timesteps")),
        cell(s.get("wall_s")),
    )
    console.print(table)
    if spec.human_baseline and baseline is None:
        console.print(
            f"[dim]no cached baseline for {steps:,} steps: run `rewardsmith baseline {spec.name} --timesteps {steps}` "
            "for the human-normalised score[/]"
        )
    console.print(f"results in {folder}")


@app.command()
def baseline(
    task: str = TaskArg,
    timesteps: int | None = typer.Option(None, min=1, help="Env steps (default: the spec's train.timesteps)."),
    seed: int = typer.Option(0, help="Random seed."),
    device: str = typer.Option("cpu", help="cpu, cuda or auto."),
) -> None:
    """Train the human (env reward) and sparse (success-only) baselines; cached per task, budget and seed."""
    from rewardsmith.search.baselines import run_baselines
    from rewardsmith.task import load_task

    spec = load_task(task)
    steps = timesteps or spec.train.timesteps
    with training_progress() as progress:
        sources = ["native", "sparse"] if spec.human_baseline else ["sparse"]
        bars = {s: progress.add_task(f"{spec.name} {'human' if s == 'native' else s}", total=steps) for s in sources}
        callbacks = {
            s: (lambda done, total, b=b: progress.update(b, completed=done, total=total)) for s, b in bars.items()
        }
        record = run_baselines(spec, timesteps=steps, seed=seed, device=device, on_progress=callbacks)
    table = Table(
        "baseline",
        "fitness",
        "success rate",
        title=f"{spec.name} baselines ({steps:,} steps, seed {seed})" + (" (cached)" if record.get("cached") else ""),
    )
    if spec.human_baseline:
        table.add_row("human (env reward)", cell(record["human"]), cell(record["human_success"]))
    table.add_row("sparse (success only)", cell(record["sparse"]), cell(record["sparse_success"]))
    console.print(table)
    if not spec.human_baseline:
        console.print("[dim]this task has no human reward in its env: only the sparse baseline applies[/]")


@app.command()
def doctor() -> None:
    """Show which sandbox layers this machine allows."""
    from rewardsmith.sandbox.probe import DEFAULT_MINIMUM, doctor_rows

    table = Table("layer", "available", "detail", title="sandbox layers on this machine")
    for layer, ok, detail in doctor_rows():
        table.add_row(layer, "[green]yes[/]" if ok else "[red]no[/]", detail)
    console.print(table)
    console.print(f"default minimum (sandbox.minimum): {', '.join(DEFAULT_MINIMUM)}")
