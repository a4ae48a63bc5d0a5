"""The `batch` verb: one search per task of a list, sharing one worker pool (local or a Ray cluster).

`rewardsmith resume BATCH_DIR` (in `cli/run.py`) hands batch folders to `resume_batch` here.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import typer

from rewardsmith.cli import app, console, err_console
from rewardsmith.cli.options import run_config, run_options


@app.command()
@run_options(skip=("out", "workers"))
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
    out: Path | None = typer.Option(
        None,
        help="Batch folder: new or empty (a batch is continued with `rewardsmith resume DIR`); default "
        "runs/batch/<stamp>/.",
    ),
    *,
    options: dict[str, Any],
) -> None:
    """Search rewards for every task of LIST at once; one summary table for all (resume with `rewardsmith resume`).

    Every option of `rewardsmith run` applies to each task's run (--feedback only as a file)."""
    from rewardsmith.errors import require_extra
    from rewardsmith.llm.choose import require_model_ready
    from rewardsmith.search.batch import BatchConfig, start
    from rewardsmith.settings import require_sandbox

    config = run_config("-", options)  # the options' values are checked before anything else
    options = {name: getattr(config, name) for name in options}  # as validated: rungs as numbers
    if config.feedback is not None:
        feedback = Path(config.feedback)
        if not feedback.is_file():
            raise typer.BadParameter(
                f"{feedback}: no such file (a batch reads feedback from a file)", param_hint="--feedback"
            )
        options["feedback"] = str(feedback.resolve())
    require_model_ready(config.model, config.api_base)  # a missing API key is named before the batch folder is made
    require_sandbox(config.sandbox_minimum)  # refuse before the batch folder is made
    if executor not in ("local", "ray"):
        raise typer.BadParameter(f"{executor!r}: use local or ray", param_hint="--executor")
    if executor == "ray":
        require_extra("ray")  # an optional part: named before the batch folder is made
    batch_config = BatchConfig(
        executor=executor,
        workers=workers,
        ray_address=ray_address,
        concurrent_tasks=concurrent_tasks,
        run_options=options,
    )
    _interruptible(lambda: start(tasks, batch_config, out=out))


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
    console.print(summary_table(summary, path), crop=False)  # run folders stay whole
    console.print(f"batch folder: {path}  (summary.json, batch.json; one run folder per task)")
    if summary.get("status") != "finished":
        err_console.print(
            f"{summary.get('totals', {}).get('finished', 0)} of {len(summary.get('tasks', []))} tasks "
            f"finished; continue with `rewardsmith resume {path}`"
        )
        raise typer.Exit(1)
