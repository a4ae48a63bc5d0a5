"""Core verbs: `tasks`, `describe`, `train`, `baseline`, `doctor`."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich import box
from rich.progress import BarColumn, Progress, TaskID, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table
from rich.text import Text

from rewardsmith.cli import app, console
from rewardsmith.errors import RewardFileError, RewardsmithError
from rewardsmith.formatting import cell, inert
from rewardsmith.run_folder.names import REWARD_FILE

if TYPE_CHECKING:
    from rewardsmith.task import TaskSpec

TaskArg = typer.Argument(..., help="A task spec name (see `rewardsmith tasks`) or a path to a .toml file.")
SandboxMinimumOpt = typer.Option(
    None,
    "--sandbox-minimum",
    help="Comma-separated sandbox layers that must hold before the reward's code runs, else refuse (default: "
    "settings file [sandbox] minimum, else clean-start,rlimits,seccomp,ast-gate,uid-drop; see `rewardsmith doctor`).",
)


def require_sandbox_here(sandbox_minimum: str | None) -> None:
    """The sandbox preflight of every verb that runs candidate code (`run`, `resume`, `batch`, `check`, `train`,
    `evaluate --video`, `report`'s videos): a SandboxError (one line, exit 2) when this machine offers fewer layers
    than required; call it before any folder is made or worker started."""
    from rewardsmith.settings import require_sandbox

    require_sandbox(sandbox_minimum.split(",") if sandbox_minimum else None)


UNUSABLE_CODES = ("too-large", "syntax-error", "signature")
"""Static findings that make a file unusable as a reward file at all (exit 2), not a rejected reward (exit 1)."""


def usable_reward_file(path: Path) -> str:
    """The source of a reward file the critic can work on; RewardFileError (one line, exit 2) for a missing path,
    a folder, an unreadable file, a syntax error or a missing/wrong `compute_reward`."""
    from rewardsmith.reward.contract import read_reward_source
    from rewardsmith.sandbox.policy import check_source

    if path.is_dir():
        raise RewardFileError(f"{path}: is a folder, not a reward file (give the .py file that defines compute_reward)")
    source = read_reward_source(path)
    for finding in check_source(source):
        if finding.code in UNUSABLE_CODES:
            where = f"{path}:{finding.line}" if finding.line else str(path)
            raise RewardFileError(f"{where}: {finding.code}: {finding.message}")
    return source


@contextmanager
def work_folder(out: Path | None, kind: str, *, keep_on_error: bool = False) -> Iterator[Path]:
    """`--out` (claimed, kept) or a temporary folder that is removed afterwards (kept on error if asked, so its
    log can be read): `check` and `train` leave nothing under runs/ unless told where."""
    from rewardsmith.run_folder.claim import claim_dir

    if out is not None:
        yield claim_dir(out)
        return
    folder = Path(tempfile.mkdtemp(prefix=f"rewardsmith-{kind}-"))
    try:
        yield folder
    except BaseException:
        if not keep_on_error:
            shutil.rmtree(folder, ignore_errors=True)
        raise
    shutil.rmtree(folder, ignore_errors=True)


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
def tasks(
    folder: Path | None = typer.Option(None, help="Folder of task specs (default: the shipped envs/)."),
    long: bool = typer.Option(False, "--long", help="A table with each task's description."),
) -> None:
    """List the task specs, one line each, grouped by family: name, what a default run costs, and whether its
    search budget is calibrated (`rewardsmith calibrate`). --long adds each one's env, steps and description."""
    from rewardsmith.cost import default_cost
    from rewardsmith.task import FAMILY_ORDER, list_tasks, task_dirs, task_family

    specs = list_tasks(folder)
    title = f"tasks in {folder or ', '.join(str(d) for d in task_dirs())}"
    cost = {spec.name: default_cost(spec) for spec in specs}
    hours = {name: f"~{h:.{0 if h >= 1 else 1}f} CPU-h" for name, (_, h) in cost.items()}
    calibration = {
        spec.name: spec.calibration.short_status(spec.train.timesteps) if spec.calibration else "uncalibrated"
        for spec in specs
    }
    if long:
        table = Table(title=title, box=box.SIMPLE_HEAD, pad_edge=False)
        table.add_column("name", no_wrap=True)  # typed by the user: never cut
        table.add_column("env", overflow="fold")
        table.add_column("default run", overflow="fold")
        table.add_column("budget", overflow="fold")
        table.add_column("task", overflow="fold")
        for spec in specs:
            steps = f"{cost[spec.name][0] / 1e6:.1f}M steps, {hours[spec.name]}"
            table.add_row(spec.name, spec.env, steps, spec.calibration_status(), spec.summary)
        console.print(table)
        return
    console.print(Text(title).append("  (--long: each task's env, budget and description)", style="dim"))
    by_family: dict[str, list[TaskSpec]] = {}
    for spec in specs:
        by_family.setdefault(task_family(spec), []).append(spec)
    width = max((len(spec.name) for spec in specs), default=0)
    for family, members in sorted(by_family.items(), key=lambda kv: FAMILY_ORDER.index(kv[0])):
        console.print(Text(family, style="bold"))
        for spec in members:  # the name comes first and is never cut
            line = Text(f"  {spec.name:<{width}}  ").append(f"{hours[spec.name]:<10}", style="dim")
            console.print(line.append(f"  {calibration[spec.name]}", style="dim"))


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
    backend: str | None = typer.Option(
        None,
        help="sb3, mjx or auto (mjx when a GPU is visible, the env is supported and the job trains 2.1 "
        "million steps or more); default: the spec's.",
    ),
    out: Path | None = typer.Option(
        None, help="Folder to keep the model, metrics and logs in (default: a temporary folder, removed)."
    ),
    sandbox_minimum: str | None = SandboxMinimumOpt,
) -> None:
    """Train a policy on TASK with a reward file in a sandboxed worker and report its fitness.

    The reward gets `run`'s time budgets: the critic's smoke run times it first (too slow: refused, exit 2), and a
    reward that gets slow during training is stopped early with the reason."""
    from rewardsmith.reward.contract import require_static_ok
    from rewardsmith.task import load_task, make_env
    from rewardsmith.workers.backends import check_training_settings

    spec = load_task(task)
    make_env(spec).close()  # an unknown env id fails here, before any work
    check_training_settings(spec, timesteps or spec.train.timesteps)  # and settings the learner refuses
    usable_reward_file(reward)
    require_static_ok(reward)
    require_sandbox_here(sandbox_minimum)
    with work_folder(out, "train", keep_on_error=True) as folder:
        options = {"backend": choose_backend_option(backend)} if backend else {}
        _train_in(folder, spec, reward, timesteps or spec.train.timesteps, seed, device, options)
        if out is None:
            console.print(
                "[dim]the training folder was temporary and is removed; pass --out DIR to keep the model, "
                "metrics and TensorBoard logs[/]"
            )
        else:
            console.print(f"results in {folder}", highlight=False)


def choose_backend_option(name: str) -> str:
    """`--backend`'s value, checked (typer's usage error names the choices)."""
    if name not in ("auto", "sb3", "mjx"):
        raise typer.BadParameter(f"must be auto, sb3 or mjx, not {name!r}", param_hint="--backend")
    return name


def _train_in(
    folder: Path, spec: TaskSpec, reward: Path, steps: int, seed: int, device: str, options: dict | None = None
) -> None:
    """Train in `folder` with a progress bar, then print the fitness table."""
    from rewardsmith.search.baselines import load_cached, normalized_score
    from rewardsmith.search.training import fallback_line, train_and_evaluate
    from rewardsmith.workers.executor import LocalExecutor

    shutil.copyfile(reward, folder / REWARD_FILE)
    executor = LocalExecutor(1)
    try:
        budget_s = _measured_budget(spec, reward, folder, executor)
    except BaseException:
        executor.shutdown()
        raise
    console.print(
        f"training [bold]{spec.name}[/] with {reward} ({spec.train.algo}, {steps:,} steps, seed {seed}; "
        + (
            f"{budget_s * 1000:.3g} ms per reward call at most)"
            if budget_s
            else "the reward's cost per call unmeasured)"
        ),
        highlight=False,
    )
    with training_progress() as progress:
        bar = progress.add_task(spec.name, total=steps)
        try:  # the policy is measured by the evaluation worker, which never loads the reward
            result, evaluation = train_and_evaluate(
                spec.source,
                folder / REWARD_FILE,
                folder,
                timesteps=steps,
                seed=seed,
                eval_episodes=spec.train.eval_episodes,
                executor=executor,
                device=device,
                on_progress=lambda done, total: progress.update(bar, completed=done, total=total),
                reward_budget_s=budget_s,
                options=options or {},
            )
        finally:
            executor.shutdown()
        if result.ok:
            progress.update(bar, completed=steps)
    fallback = result.summary.get("backend_fallback")
    if fallback:
        console.print(f"[yellow]{fallback_line(fallback)}[/]", highlight=False)
    if result.status == "rejected":
        raise RewardFileError(f"{reward}: {result.error}")
    if not result.ok:
        raise RewardsmithError(f"training failed: {result.error} (log: {folder / 'worker.log'})")
    assert evaluation is not None
    s = {
        "fitness": evaluation.fitness_mean,
        "success_rate": evaluation.success_rate,
        "ep_len": sum(evaluation.lengths) / len(evaluation.lengths),
        "timesteps": result.summary.get("timesteps"),
        "wall_s": round(result.wall_s, 3),
    }
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


def _measured_budget(spec: TaskSpec, reward: Path, folder: Path, executor) -> float | None:
    """The reward's time budgets, as `run` applies them: the critic's smoke worker times it on real transitions
    (in `folder/critic/`); a reward over the critic's per-call limits (median and slowest call) is refused with its
    finding (RewardFileError), and training gets `reward_budget`'s per-call budget (10x the measured median)."""
    from rewardsmith.run_folder.names import CRITIC_DIR, REWARD_FILE
    from rewardsmith.search.training import reward_budget
    from rewardsmith.stages.critic import dynamic_findings

    console.print("[dim]timing the reward on sampled transitions (the critic's smoke run)[/]")
    findings, stats = dynamic_findings(spec, folder / REWARD_FILE, folder / CRITIC_DIR, executor=executor)
    slow = [f for f in findings if f.severity == "error" and f.code == "too-slow"]
    if slow:
        raise RewardFileError(f"{reward}: too slow to train, as `run` would reject it: {slow[0].message}")
    return reward_budget({"stats": {"dynamic": stats}})


def _bar_callback(progress: Progress, bar: TaskID) -> Callable[[int, int], None]:
    return lambda done, total: progress.update(bar, completed=done, total=total)


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
    from rewardsmith.workers.backends import check_training_settings

    spec = load_task(task)
    steps = timesteps or spec.train.timesteps
    check_training_settings(spec, steps)
    with training_progress() as progress:
        sources = ["native", "sparse"] if spec.human_baseline else ["sparse"]
        bars = {s: progress.add_task(f"{spec.name} {'human' if s == 'native' else s}", total=steps) for s in sources}
        callbacks = {s: _bar_callback(progress, b) for s, b in bars.items()}
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
    import re

    from rewardsmith.sandbox.lockdown import SandboxSettings
    from rewardsmith.sandbox.probe import DEFAULT_MINIMUM, GIVEN_UP, PROBE_MEMORY_MB, PROBE_PROCESSES, doctor_rows
    from rewardsmith.settings import ALLOW_UID0_ENV

    table = Table("layer", "available", "detail", title="sandbox layers on this machine")
    table.columns[0].no_wrap = True
    workers = SandboxSettings()
    missing = []
    for layer, ok, detail in doctor_rows():
        if layer == "rlimits":  # the probe tests a small limit; say the one workers get, as run.json records it
            detail = re.sub(
                r"as=\d+MiB", f"as={workers.memory_mb}MiB (probed with {PROBE_MEMORY_MB}MiB)", detail, count=1
            )
        if layer == "pids":
            detail = detail.replace(f"={PROBE_PROCESSES}", f"={workers.processes} (probed with {PROBE_PROCESSES})", 1)
        table.add_row(layer, "[green]yes[/]" if ok else "[red]no[/]", inert(detail))
        missing += [] if ok else [layer]
    console.print(table)
    for layer in missing:
        console.print(f"without {layer}: {GIVEN_UP[layer]}", highlight=False, markup=False)
    console.print(f"default minimum (sandbox.minimum): {', '.join(DEFAULT_MINIMUM)}")
    if "uid-drop" in missing:
        console.print(
            f"uid-drop is in the default minimum: runs refuse here unless you accept uid 0 with {ALLOW_UID0_ENV}=1 "
            "or `[sandbox] allow_uid0 = true`",
            highlight=False,
            markup=False,
        )
    from rewardsmith.sandbox import forkserver

    console.print(
        "workers: warm, forked one per job from a pre-imported server that never runs candidate code "
        f"({forkserver.ENV_SWITCH}=0 starts each one cold)"
        if forkserver.enabled()
        else f"workers: cold, a fresh interpreter per job ({forkserver.ENV_SWITCH}=0)"
    )
