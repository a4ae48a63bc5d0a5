"""Search verbs: `run` (a new designer-critic-trainer-analyzer search) and `resume` (continue one from its folder)."""

from __future__ import annotations

from pathlib import Path

import typer

from rewardsmith.cli import app, console
from rewardsmith.cli.core import TaskArg


@app.command()
def run(
    task: str = TaskArg,
    model: str | None = typer.Option(
        None,
        "--model",
        "-m",
        help="litellm model name, 'local' or 'scripted:PATH' "
        "(default: $REWARDSMITH_MODEL, else by API key, else local).",
    ),
    api_base: str | None = typer.Option(None, help="Base URL of an OpenAI-compatible server."),
    iterations: int | None = typer.Option(None, min=1, help="Iterations (default: the spec's search.iterations)."),
    samples: int | None = typer.Option(None, min=1, help="Candidates per iteration, K (spec search.samples)."),
    timesteps: int | None = typer.Option(None, min=1, help="Training steps per candidate (spec train.timesteps)."),
    final_timesteps: int | None = typer.Option(
        None, min=1, help="Steps of the final retraining (spec train.final_timesteps)."
    ),
    final_seeds: int | None = typer.Option(
        None, min=1, help="Seeds of the final retraining (spec search.final_seeds)."
    ),
    repair_rounds: int | None = typer.Option(
        None, min=0, help="Repair requests per failed candidate (spec search.repair_rounds)."
    ),
    workers: int | None = typer.Option(None, min=1, help="Parallel training workers (default: number of cores)."),
    seed: int = typer.Option(0, help="Random seed of training."),
    device: str = typer.Option("cpu", help="cpu, cuda or auto."),
    semantic: bool | None = typer.Option(
        None, "--semantic/--no-semantic", help="LLM review in the critic (default: on for API models only)."
    ),
    llm_summary: bool = typer.Option(
        False, "--llm-summary", help="Ask the LLM to summarise each trained policy's behaviour."
    ),
    videos: bool = typer.Option(
        False, "--videos", help="Record a policy video of every iteration's best (the best always gets one)."
    ),
    screen: bool = typer.Option(
        False,
        "--screen",
        help="From iteration 2, screen candidates on earlier policies' "
        "recorded episodes: a reward that ranks them against fitness goes back for repair.",
    ),
    sandbox_minimum: str | None = typer.Option(
        None,
        help="Comma-separated sandbox layers that must hold, else refuse "
        "(default: settings file [sandbox] minimum, else clean-start,rlimits,seccomp,ast-gate).",
    ),
    out: Path | None = typer.Option(None, help="Run folder (new or empty; default runs/<task>/<stamp>/)."),
) -> None:
    """Search for a reward function for TASK: design, critique, train, analyse, refine; then retrain the best."""
    from rewardsmith.config import RunConfig
    from rewardsmith.search.loop import run as run_search

    options = dict(
        model=model,
        api_base=api_base,
        iterations=iterations,
        samples=samples,
        timesteps=timesteps,
        final_timesteps=final_timesteps,
        final_seeds=final_seeds,
        repair_rounds=repair_rounds,
        workers=workers,
        semantic=semantic,
        out=out,
    )
    config = RunConfig(
        task=task,
        seed=seed,
        device=device,
        llm_summary=llm_summary,
        videos=videos,
        screen=screen,
        sandbox_minimum=sandbox_minimum.split(",") if sandbox_minimum else None,
        **{k: v for k, v in options.items() if v is not None or k == "semantic"},
    )
    _report(run_search(config).path)


@app.command()
def resume(run_dir: Path = typer.Argument(..., help="The run folder to continue (runs/<task>/<stamp>/).")) -> None:
    """Continue a killed or failed run from its folder, without redoing finished candidates or repaying LLM calls."""
    from rewardsmith.search.loop import resume as resume_search

    if (run_dir / "batch.json").is_file():  # a batch folder: every unfinished task resumes
        from rewardsmith.cli.batch import resume_batch

        return resume_batch(run_dir)
    _report(resume_search(run_dir).path)


def _report(path: Path) -> None:
    from rewardsmith.run_folder.folder import RunFolder
    from rewardsmith.search.progress import result_tables

    for table in result_tables(RunFolder(path)):
        console.print(table)
    console.print(f"run folder: {path}  (best reward: {path / 'best' / 'reward.py'})")
