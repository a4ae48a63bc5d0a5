"""The `calibrate` verb: does a task's search budget tell a good reward from a weak one?"""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from rewardsmith.cli import app, console
from rewardsmith.cli.core import SandboxMinimumOpt, TaskArg, choose_backend_option, require_sandbox_here
from rewardsmith.formatting import se_words

if TYPE_CHECKING:
    from rewardsmith.search.calibration import CalibrationReport
    from rewardsmith.task import TaskSpec

WEAK_CHOICES = ("alive", "effort")
"""The weak references `calibrate` can generate. The margin's default, 2 standard errors, is
`rewardsmith.search.calibration.MARGIN_SE` (not imported here: the CLI starts without gymnasium)."""


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
    backend: str | None = typer.Option(
        None,
        help="Training backend: sb3, mjx or auto, as `run --backend` (default: the spec's); recorded with the result.",
    ),
    out: Path | None = typer.Option(None, help="Folder for the trainings (default: runs/calibration/<task>)."),
    write_spec: bool = typer.Option(False, "--write-spec", help="Record the result as the spec's [calibration]."),
    sandbox_minimum: str | None = SandboxMinimumOpt,
) -> None:
    """Train a good reward, weak references and the random policy at the first rung and the search budget (and
    longer budgets while those do not separate); report whether good > weak > random holds, by how many
    standard errors, and the smallest budget that separates them. A cut-short calibration resumes from --out."""
    from rewardsmith.errors import RewardsmithError
    from rewardsmith.run_folder.claim import RUNS_DIR
    from rewardsmith.search.calibration import write_spec_calibration
    from rewardsmith.task import load_task
    from rewardsmith.workers.backends import check_training_settings

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
    if backend is not None:
        backend = choose_backend_option(backend)
    require_sandbox_here(sandbox_minimum)
    check_training_settings(spec)  # before any training: settings the learner refuses
    report = calibrate_and_print(
        spec,
        Path(good),
        out or RUNS_DIR / "calibration" / spec.name,
        seeds=seeds,
        episodes=episodes,
        budget=budget,
        up_to=up_to,
        weak=kinds,
        margin=margin,
        workers=workers,
        backend=backend,
    )
    if write_spec:
        if spec.source is None:
            raise RewardsmithError(f"{spec.name}: the spec was not read from a file")
        write_spec_calibration(spec.source, report.spec_record())
        console.print(f"wrote [calibration] to {spec.source}", highlight=False, markup=False)


def calibrate_and_print(
    spec: TaskSpec,
    good: Path,
    work: Path,
    *,
    seeds: int = 3,
    episodes: int | None = None,
    budget: int | None = None,
    up_to: float = 4.0,
    weak: tuple[str, ...] = WEAK_CHOICES,
    margin: float = 2.0,
    workers: int = 1,
    backend: str | None = None,
) -> CalibrationReport:
    """Run `rewardsmith.search.calibration.calibrate` on a local worker pool, printing each budget as it is
    measured and then the table and verdict (`calibrate`, `check-task --calibrate` and the bench print this)."""
    from rewardsmith.search.calibration import calibrate
    from rewardsmith.workers.executor import LocalExecutor

    measured = (
        spec.model_copy(update={"train": spec.train.model_copy(update={"timesteps": budget})}) if budget else spec
    )
    hours = calibration_cost(measured, seeds, len(weak))
    console.print(
        f"calibrating {spec.name}: {good} vs {', '.join(weak) or 'no weak reference'} vs random, {seeds} seeds, "
        f"search budget {budget or spec.train.timesteps:,} steps" + (f", backend {backend}" if backend else ""),
        highlight=False,
        markup=False,
    )
    console.print(
        f"  about {hours:.1f} CPU-h of training for the first rung and the search budget (rewardsmith.cost), "
        f"~{hours / max(workers, 1):.1f} h on {workers} worker{'s' if workers > 1 else ''}"
        + ("; each doubling tried after it costs more" if up_to > 1 else ""),
        highlight=False,
        markup=False,
    )
    executor = LocalExecutor(workers)
    try:
        report = calibrate(
            spec,
            good.resolve(),
            work,
            executor,
            seeds=seeds,
            episodes=episodes,
            search_budget=budget,
            up_to=up_to,
            weak=weak,  # type: ignore[arg-type]
            margin=margin,
            parallel=workers,
            backend=backend,
            on_row=lambda row: console.print(
                f"  {row.budget:,} steps: good leads by {se_words(row.margin)} ({row.wall_s:.0f} s)", highlight=False
            ),
            on_training=lambda line: console.print(f"    {line}", highlight=False, markup=False, style="dim"),
        )
    finally:
        executor.shutdown()
    print_report(report, margin)
    return report


def print_report(report: CalibrationReport, margin: float = 2.0) -> None:
    """Each measured budget's good, strongest weak and random fitness (mean ± se) and gaps, then the verdict."""
    from rewardsmith.stats import mean_se

    console.print(f"{report.task}: trusted fitness, mean ± se (over seeds; random: over episodes)", highlight=False)
    for row in report.rows:
        kind, values = row.strongest_weak
        label = " (first rung)" if row.budget == report.first_rung else ""
        label = " (search budget)" if row.budget == report.search_budget else label
        weak = f"{kind} {pm(*mean_se(values))}, " if row.weak else ""  # none: the bench's good against random
        gaps = [f"good-random {se_words(row.good_vs_random)}"]
        if row.weak:
            gaps = [f"good-weak {se_words(row.good_vs_weak)}", *gaps, f"weak-random {se_words(row.weak_vs_random)}"]
        console.print(
            f"  {row.budget:,} steps{label}: good {pm(*mean_se(row.good))}, {weak}random {pm(*mean_se(row.random))}; "
            f"{', '.join(gaps)}: " + ("separates" if row.calibrated(margin) else "does NOT separate"),
            highlight=False,
        )
    smallest = f"{report.smallest_budget:,} steps" if report.smallest_budget else "none of the budgets tried"
    status = report.spec_record().status(report.search_budget)
    if report.row(report.search_budget) is None:  # a calibration cut short: nothing to conclude yet
        status = f"not measured at the search budget ({report.search_budget:,} steps) yet"
    console.print(f"{report.task}: {status}; smallest budget that separates: {smallest}", highlight=False)


def pm(mean: float, se: float) -> str:
    """`mean ± se` to 3 significant digits."""
    return "-" if math.isnan(mean) else f"{mean:.3g} ± {se:.2g}"


def on(backend: str | None) -> str:
    """ ", on mjx" for a calibration measured on a backend asked for by name; "" for the spec's own."""
    return f", on {backend}" if backend else ""


TABLE_HEAD = (
    "| task | search budget | first rung | example | strongest weak | random | margin (first rung) | calibrated | wall |\n"
    "|---|---|---|---|---|---|---|---|---|"
)


def calibration_table(specs: list[TaskSpec], seeds: int = 3) -> str:
    """A markdown table of every task's recorded calibration (its spec's `[calibration]`): trusted fitness as
    mean ± se at the search budget, good's margin in standard errors there (and at the first rung), the wall time
    measured. An uncalibrated task's row says so, with what `seeds` seeds of the default calibration would cost."""
    from rewardsmith.search.calibration import first_rung

    rows = [TABLE_HEAD]
    for spec in specs:
        budget, rung, cal = spec.train.timesteps, first_rung(spec), spec.calibration
        if cal is None or not cal.current(budget):
            cost = calibration_cost(spec, seeds)
            why = "uncalibrated" if cal is None else f"stale: measured {cal.stale or f'at {cal.budget:,} steps'}"
            rows.append(
                f"| {spec.name} | {budget:,} | {rung:,} | - | - | - | - | no ({why}; ~{cost:.1f} CPU-h to calibrate) | - |"
            )
            continue
        verdict = "yes" if cal.calibrated else "no (needs GPU or long budget)"
        if not cal.calibrated and cal.smallest_budget:
            verdict = f"no ({cal.smallest_budget:,} steps separate)"
        weak = f"{pm(*cal.weak)} ({', '.join(cal.weak_references)})" if cal.weak else "-"
        at, first = (math.nan if m is None else m for m in (cal.margin_se, cal.first_rung_margin_se))
        margins = f"{se_words(at)} ({se_words(first)})"
        rows.append(
            f"| {spec.name} | {budget:,} | {cal.first_rung or rung:,} | {pm(*cal.good)} | {weak} | {pm(*cal.random)} "
            f"| {margins} | {verdict} | {cal.wall_s / 60:.0f} min, {cal.seeds} seeds{on(cal.backend)} |"
        )
    return "\n".join(rows)


def calibration_cost(spec: TaskSpec, seeds: int = 3, weak: int = len(WEAK_CHOICES)) -> float:
    """CPU-hours the default calibration of a spec trains for (good and `weak` references, `seeds` seeds, at the
    first rung and the search budget), at the rate `rewardsmith tasks` estimates a default run with."""
    from rewardsmith.cost import default_cost
    from rewardsmith.search.calibration import first_rung

    steps, hours = default_cost(spec)
    return (first_rung(spec) + spec.train.timesteps) * seeds * (1 + weak) * hours / steps
