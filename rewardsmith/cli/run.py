"""Search verbs: `run` (a new designer-critic-trainer-analyzer search) and `resume` (continue one from its folder)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

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
        None,
        min=1,
        help="Steps of the final retraining (default: --timesteps when given, else spec train.final_timesteps).",
    ),
    final_seeds: int | None = typer.Option(
        None, min=0, help="Seeds of the final retraining (spec search.final_seeds); 0 skips it."
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
    screen: bool | None = typer.Option(
        None,
        "--screen/--no-screen",
        help="From iteration 2, screen candidates on earlier policies' recorded episodes: a reward that ranks them "
        "against fitness goes back for repair. Default: on for the default strategy, off for eureka.",
        show_default=False,
    ),
    feedback: str | None = typer.Option(
        None,
        help="After each iteration but the last, take your feedback for the next prompt: 'ask' shows the "
        "candidates and reads free text or 'rank: 1.2 > 1.1' in the terminal; FILE reads the same from a text file "
        "('# after iteration N' headings). Recorded in the run; resume replays it.",
    ),
    sandbox_minimum: str | None = typer.Option(
        None,
        help="Comma-separated sandbox layers that must hold, else refuse "
        "(default: settings file [sandbox] minimum, else clean-start,rlimits,seccomp,ast-gate).",
    ),
    out: Path | None = typer.Option(None, help="Run folder (new or empty; default runs/<task>/<stamp>/)."),
    strategy: str = typer.Option(
        "default",
        help="default: successive halving and noise-aware selection; eureka: K=16 x 5 iterations, every "
        "candidate trained fully, highest mean wins, best-only feedback.",
    ),
    rungs: str | None = typer.Option(
        None,
        help="Successive halving rungs as comma-separated fractions of --timesteps, e.g. 0.125,0.25,0.5,1 "
        "(default for the default strategy: 0.0625,0.25,1).",
    ),
    keep: float | None = typer.Option(
        None,
        min=0.01,
        max=1.0,
        help="Fraction of a rung's candidates that go on, at least 2 where there are 2 [default: 0.25].",
    ),
    crossover: bool = typer.Option(
        False,
        "--crossover",
        help="From iteration 2, the last sample of each round combines the components of the two best candidates "
        "so far (REvolve-style crossover).",
    ),
    warm_start: bool = typer.Option(
        False,
        "--warm-start",
        help="From iteration 2, start each candidate's training from the best policy so far (stable-eureka).",
    ),
    stop_flat: bool = typer.Option(
        True, "--stop-flat/--no-stop-flat", help="Stop a rung survivor whose fitness stopped rising."
    ),
    progress_bonus: float = typer.Option(
        0.0,
        min=0.0,
        help="Progress counts: candidates also write progress(state) (per sub-goal, in [0, 1]) and training adds "
        "BETA/sqrt(N) for the N-th visit of the discretised progress; 0 (default): off.",
    ),
    progress_bins: int = typer.Option(10, min=1, max=100, help="Progress counts: bins per sub-goal."),
    shared_cache: bool = typer.Option(
        False,
        "--shared-cache",
        help="Also replay LLM answers from the cache shared between runs (~/.cache/rewardsmith/llm); "
        "by default only the run's own cache is used (for resume).",
    ),
    no_cache: bool = typer.Option(
        False, "--no-cache", help="Replay nothing: every LLM call goes to the model (a resume pays again)."
    ),
) -> None:
    """Search for a reward function for TASK: design, critique, train, analyse, refine; then retrain the best."""
    from rewardsmith.config import RunConfig
    from rewardsmith.llm.choose import require_model_ready
    from rewardsmith.search.loop import run as run_search

    require_model_ready(model, api_base)  # a missing API key is named before anything starts

    options = dict(
        **budget_options(model, api_base, iterations, samples, timesteps, final_timesteps, final_seeds),
        repair_rounds=repair_rounds,
        workers=workers,
        semantic=semantic,
        out=out,
    )
    if shared_cache and no_cache:
        raise typer.BadParameter("choose one of --shared-cache and --no-cache", param_hint="--no-cache")
    use_cache = True if shared_cache else False if no_cache else None
    config = RunConfig(
        task=task,
        seed=seed,
        device=device,
        llm_summary=llm_summary,
        videos=videos,
        screen=screen,
        feedback=feedback,
        sandbox_minimum=sandbox_minimum.split(",") if sandbox_minimum else None,
        strategy=parse_strategy(strategy),
        rungs=parse_rungs(rungs),
        stop_flat=stop_flat,
        crossover=crossover,
        warm_start=warm_start,
        progress_bonus=progress_bonus,
        progress_bins=progress_bins,
        use_cache=use_cache,
        **({} if keep is None else {"keep": keep}),
        **{k: v for k, v in options.items() if v is not None or k == "semantic"},
    )
    announce_cache(use_cache)
    _report(run_search(config).path)


def budget_options(
    model: str | None,
    api_base: str | None,
    iterations: int | None,
    samples: int | None,
    timesteps: int | None,
    final_timesteps: int | None,
    final_seeds: int | None,
) -> dict:
    """The model and budget options `run` and `batch` share, as RunConfig fields (None: the spec's value)."""
    return dict(
        model=model,
        api_base=api_base,
        iterations=iterations,
        samples=samples,
        timesteps=timesteps,
        final_timesteps=final_timesteps or timesteps,  # the command's budget also sizes the final retraining
        final_seeds=final_seeds,
    )


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


def parse_strategy(text: str) -> Literal["default", "eureka"]:
    """`--strategy`: default or eureka; a clear error for anything else."""
    if text not in ("default", "eureka"):
        raise typer.BadParameter(f"choose default or eureka; got {text!r}", param_hint="--strategy")
    return "eureka" if text == "eureka" else "default"


def parse_rungs(text: str | None) -> list[float] | None:
    """`--rungs 0.125,0.25,1` as a list of fractions; a clear error for anything else."""
    if text is None:
        return None
    try:
        rungs = [float(part) for part in text.split(",") if part.strip()]
    except ValueError:
        rungs = []
    if not rungs or any(not 0 < f <= 1 for f in rungs) or sorted(set(rungs)) != rungs:
        raise typer.BadParameter(
            f"expected increasing comma-separated fractions in (0, 1] like 0.25,0.5,1; got {text!r}",
            param_hint="--rungs",
        )
    return rungs


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
