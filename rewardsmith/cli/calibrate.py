"""The `calibrate` verb: does a task's search budget tell a good reward from a weak one?"""

from __future__ import annotations

import math
from pathlib import Path

import typer

from rewardsmith.cli import app, console
from rewardsmith.cli.core import SandboxMinimumOpt, TaskArg, require_sandbox_here

WEAK_CHOICES = ("alive", "effort")


@app.command()
def calibrate(
    task: str = TaskArg,
    reward: Path | None = typer.Option(
        None, help="The good reward (default: the task's example reward, envs/examples/<task>.py)."
    ),
    seeds: int = typer.Option(3, min=2, help="Training seeds per reward and budget."),
    episodes: int | None = typer.Option(None, min=1, help="Evaluation episodes per training (default: the spec's)."),
    budget: int | None = typer.Option(None, min=1, help="The search budget to calibrate (default: the spec's)."),
    up_to: float = typer.Option(
        4.0, "--up-to", min=1.0, help="Try doublings of the search budget up to this factor while it does not separate."
    ),
    weak: str = typer.Option(
        "alive,effort",
        help="Weak references, comma-separated: alive, effort (use effort alone where surviving is the task).",
    ),
    margin: float = typer.Option(2.0, min=0.0, help="Standard errors good must lead by."),
    workers: int = typer.Option(1, min=1, help="Trainings in parallel."),
    out: Path | None = typer.Option(None, help="Folder for the trainings (default: runs/calibration/<task>)."),
    write_spec: bool = typer.Option(False, "--write-spec", help="Record the result as the spec's [calibration]."),
    sandbox_minimum: str | None = SandboxMinimumOpt,
) -> None:
    """Train a good reward, weak references and the random policy at the first rung and the search budget (and
    longer budgets while those do not separate); report whether good > weak > random holds, by how many
    standard errors, and the smallest budget that separates them. A cut-short calibration resumes from --out."""
    from rewardsmith.errors import RewardsmithError
    from rewardsmith.run_folder.claim import RUNS_DIR
    from rewardsmith.search.calibration import calibrate as run_calibration
    from rewardsmith.search.calibration import write_spec_calibration
    from rewardsmith.task import load_task
    from rewardsmith.workers.executor import LocalExecutor

    spec = load_task(task)
    kinds = tuple(k.strip() for k in weak.split(",") if k.strip())
    bad = [k for k in kinds if k not in WEAK_CHOICES]
    if bad or not kinds:
        raise RewardsmithError(f"--weak takes {', '.join(WEAK_CHOICES)}, not {', '.join(bad) or 'nothing'}")
    good = reward or spec.example_reward
    if good is None:
        raise RewardsmithError(f"{spec.name} has no example reward (envs/examples/); name a good one with --reward")
    if not Path(good).is_file():
        raise RewardsmithError(f"{good}: no such reward file")
    require_sandbox_here(sandbox_minimum)
    work = out or RUNS_DIR / "calibration" / spec.name
    console.print(
        f"calibrating {spec.name}: {good} vs {', '.join(kinds)} vs random, {seeds} seeds, "
        f"search budget {budget or spec.train.timesteps:,} steps",
        highlight=False,
    )
    executor = LocalExecutor(workers)
    try:
        report = run_calibration(
            spec,
            Path(good).resolve(),
            work,
            executor,
            seeds=seeds,
            episodes=episodes,
            search_budget=budget,
            up_to=up_to,
            weak=kinds,  # type: ignore[arg-type]
            margin=margin,
            parallel=workers,
            on_row=lambda row: console.print(
                f"  {row.budget:,} steps: good leads by {se_words(row.margin)} ({row.wall_s:.0f} s)", highlight=False
            ),
        )
    finally:
        executor.shutdown()
    from rewardsmith.search.calibration import mean_se

    console.print(f"{spec.name}: trusted fitness, mean ± se (over seeds; random: over episodes)", highlight=False)
    for row in report.rows:
        kind, values = row.strongest_weak
        label = " (first rung)" if row.budget == report.first_rung else ""
        label = " (search budget)" if row.budget == report.search_budget else label
        console.print(
            f"  {row.budget:,} steps{label}: good {pm(*mean_se(row.good))}, {kind} {pm(*mean_se(values))}, "
            f"random {pm(*mean_se(row.random))}; good-weak {se_words(row.good_vs_weak)}, "
            f"good-random {se_words(row.good_vs_random)}, weak-random {se_words(row.weak_vs_random)}: "
            + ("separates" if row.calibrated(margin) else "does NOT separate"),
            highlight=False,
        )
    record = report.spec_record()
    smallest = f"{report.smallest_budget:,} steps" if report.smallest_budget else "none of the budgets tried"
    console.print(f"{spec.name}: {record.status(report.search_budget)}; smallest budget that separates: {smallest}")
    if write_spec:
        if spec.source is None:
            raise RewardsmithError(f"{spec.name}: the spec was not read from a file")
        write_spec_calibration(spec.source, record)
        console.print(f"wrote [calibration] to {spec.source}", highlight=False, markup=False)


def pm(mean: float, se: float) -> str:
    """`mean ± se` to 3 significant digits."""
    return "-" if math.isnan(mean) else f"{mean:.3g} ± {se:.2g}"


def se_words(gap: float) -> str:
    """A gap in standard errors, signed."""
    return "-" if math.isnan(gap) else f"{gap:+.1f} se" if math.isfinite(gap) else ("+inf se" if gap > 0 else "-inf se")
