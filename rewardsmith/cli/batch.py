"""The `batch` verb: one search per task of a list, sharing one worker pool (local or a Ray cluster).

`rewardsmith resume BATCH_DIR` (in `cli/run.py`) hands batch folders to `resume_batch` here.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import typer

from rewardsmith.cli import app, console, err_console


@app.command()
def batch(
    tasks: str = typer.Argument(
        ...,
        metavar="LIST",
        help="A text file of task names or spec paths, one a line "
        "(# comments), or a quoted glob of spec files such as 'envs/*.toml'.",
    ),
    workers: int | None = typer.Option(
        None, min=1, help="Training workers shared by all tasks (default: the cores here, or the Ray cluster's CPUs)."
    ),
    executor: str = typer.Option("local", help="Where candidates train: local or ray."),
    ray_address: str | None = typer.Option(
        None, help="A running Ray cluster, e.g. 10.0.0.5:6379 (default with --executor ray: start a local Ray)."
    ),
    concurrent_tasks: int | None = typer.Option(None, min=1, help="Tasks searching at once (default: 2 x workers)."),
    out: Path | None = typer.Option(None, help="Batch folder (new or empty; default runs/batch/<stamp>/)."),
    model: str | None = typer.Option(None, "--model", "-m", help="litellm model name, 'local' or 'scripted:PATH'."),
    api_base: str | None = typer.Option(None, help="Base URL of an OpenAI-compatible server."),
    iterations: int | None = typer.Option(None, min=1, help="Iterations per task (default: each spec's)."),
    samples: int | None = typer.Option(None, min=1, help="Candidates per iteration (default: each spec's)."),
    timesteps: int | None = typer.Option(None, min=1, help="Training steps per candidate (default: each spec's)."),
    final_timesteps: int | None = typer.Option(
        None, min=1, help="Steps of the final retraining (default: --timesteps when given, else each spec's)."
    ),
    final_seeds: int | None = typer.Option(
        None, min=0, help="Seeds of the final retraining (default: each spec's); 0 skips it."
    ),
    strategy: str = typer.Option("default", help="default or eureka (see `rewardsmith run --help`)."),
    rungs: str | None = typer.Option(
        None, help="Successive halving rungs, fractions of --timesteps (default strategy)."
    ),
    seed: int = typer.Option(0, help="Random seed of training."),
    device: str = typer.Option("cpu", help="cpu, cuda or auto (passed to SB3)."),
    videos: bool = typer.Option(False, "--videos", help="Record a policy video of every iteration's best in each run."),
    screen: bool | None = typer.Option(
        None,
        "--screen/--no-screen",
        help="Screen candidates on earlier policies' recorded episodes before training (from iteration 2; default: "
        "on for the default strategy, off for eureka; see `rewardsmith run --help`).",
        show_default=False,
    ),
    feedback: Path | None = typer.Option(
        None, help="A text file of feedback after each iteration, for every task (see `rewardsmith run --help`)."
    ),
    sandbox_minimum: str | None = typer.Option(
        None,
        help="Comma-separated sandbox layers that must hold, else refuse "
        "(default: settings file [sandbox] minimum, else the stock minimum).",
    ),
) -> None:
    """Search rewards for every task of LIST at once; one summary table for all (resume with `rewardsmith resume`)."""
    from rewardsmith.cli.run import budget_options, parse_rungs, parse_strategy
    from rewardsmith.llm.choose import require_model_ready
    from rewardsmith.search.batch import BatchConfig, start
    from rewardsmith.settings import require_sandbox

    require_model_ready(model, api_base)  # a missing API key is named before the batch folder is made
    minimum = sandbox_minimum.split(",") if sandbox_minimum else None
    require_sandbox(minimum)  # refuse before the batch folder is made
    options = dict(
        **budget_options(model, api_base, iterations, samples, timesteps, final_timesteps, final_seeds),
        seed=seed,
        device=device,
        videos=videos or None,
        screen=screen,
        feedback=str(feedback.resolve()) if feedback else None,
        sandbox_minimum=minimum,
        strategy=None if strategy == "default" else parse_strategy(strategy),
        rungs=parse_rungs(rungs),
    )
    if feedback is not None and not feedback.is_file():
        raise typer.BadParameter(
            f"{feedback}: no such file (a batch reads feedback from a file)", param_hint="--feedback"
        )
    if executor not in ("local", "ray"):
        raise typer.BadParameter(f"{executor!r}: use local or ray", param_hint="--executor")
    config = BatchConfig(
        executor=executor,
        workers=workers,
        ray_address=ray_address,
        concurrent_tasks=concurrent_tasks,
        run_options={k: v for k, v in options.items() if v is not None},
    )
    _interruptible(lambda: start(tasks, config, out=out))


def resume_batch(batch_dir: Path) -> None:
    """Continue a batch folder: finished tasks are kept, the others resume."""
    from rewardsmith.search.batch import resume

    _interruptible(lambda: resume(batch_dir))


def _interruptible(work) -> None:
    """Run a batch and print its table; Ctrl-C leaves a resumable folder and exits at once (task threads and
    workers are not waited for)."""
    from rewardsmith.search.batch import read_summary
    from rewardsmith.search.batch_live import summary_table

    try:
        path = work()
    except KeyboardInterrupt as e:  # rewardsmith.sandbox.interrupt.Interrupted: 130 for SIGINT, 143 for SIGTERM
        if not getattr(e, "reported", False):
            err_console.print(
                "interrupted; the batch folder keeps what finished (continue with `rewardsmith resume DIR`)"
            )
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(getattr(e, "exit_code", 130))
    summary = read_summary(path) or {}
    console.print(summary_table(summary), crop=False)  # run folders stay whole
    console.print(f"batch folder: {path}  (summary.json, batch.json; one run folder per task)")
    if summary.get("status") != "finished":
        err_console.print(
            f"{summary.get('totals', {}).get('finished', 0)} of {len(summary.get('tasks', []))} tasks "
            f"finished; continue with `rewardsmith resume {path}`"
        )
        raise typer.Exit(1)
