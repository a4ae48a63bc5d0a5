"""Search verbs: `run` (a new designer-critic-trainer-analyzer search) and `resume` (continue one from its folder)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from rewardsmith.cli import app, console
from rewardsmith.cli.core import TaskArg
from rewardsmith.cli.options import run_config, run_options


@app.command()
@run_options()
def run(task: str = TaskArg, *, options: dict[str, Any]) -> None:
    """Search for a reward function for TASK: design, critique, train, analyse, refine; then retrain the best."""
    from rewardsmith.llm.choose import require_model_ready

    config = run_config(task, options)
    require_model_ready(config.model, config.api_base)  # a missing API key is named before anything heavy loads
    from rewardsmith.search.loop import run as run_search

    announce_cache(config.use_cache)
    _report(run_search(config).path)


def announce_cache(use_cache: bool | None) -> None:
    """Say where LLM answers may be replayed from, when it is not the run's own cache."""
    from rewardsmith.llm.cache import default_cache_dir

    if use_cache:
        console.print(
            f"LLM cache: shared ({default_cache_dir()}); answers from earlier runs are replayed and shown as replayed",
            highlight=False,
        )
    elif use_cache is False:
        console.print("LLM cache: off; every call goes to the model", highlight=False)


@app.command()
def resume(run_dir: Path = typer.Argument(..., help="The run folder to continue (runs/<task>/<stamp>/).")) -> None:
    """Continue a killed or failed run from its folder, without redoing finished candidates or repaying LLM calls."""
    from rewardsmith.search.loop import resume as resume_search

    if (run_dir / "batch.json").is_file():  # a batch folder: every unfinished task resumes
        from rewardsmith.cli.batch import resume_batch

        return resume_batch(run_dir)
    from rewardsmith.views.run_view import require_run_dir

    require_run_dir(run_dir)
    console.print(f"resuming run {run_dir}", highlight=False, soft_wrap=True)
    _report(resume_search(run_dir).path)


def _report(path: Path) -> None:
    from rewardsmith.run_folder.folder import RunFolder
    from rewardsmith.search.live import result_tables

    for table in result_tables(RunFolder(path)):
        console.print(table)
    # whole lines, never wrapped: these paths are what the user types next (review, report, export)
    console.print(f"run folder: {path}", highlight=False, soft_wrap=True)
    console.print(f"best reward: {path / 'best' / 'reward.py'}", highlight=False, soft_wrap=True)
    console.print(f"next: rewardsmith review {path}   |   rewardsmith report {path}", highlight=False, soft_wrap=True)
