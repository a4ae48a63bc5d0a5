"""The `evaluate` verb: play a saved policy again, scored by the task's trusted fitness (like RL Zoo's enjoy)."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.table import Table

from rewardsmith.cli import app, console
from rewardsmith.cli.core import SandboxMinimumOpt, require_sandbox_here
from rewardsmith.formatting import cell, mean_pm


@app.command()
def evaluate(
    target: Path = typer.Argument(
        ..., metavar="RUN|MODEL", help="A run folder, a training folder or a policy.safetensors file."
    ),
    episodes: int = typer.Option(5, "--episodes", "-n", min=1, max=1000, help="Episodes on fresh seeds."),
    candidate: str | None = typer.Option(
        None, "--candidate", "-c", help="In a run: this candidate's policy (default: final retraining, else best)."
    ),
    task: str | None = typer.Option(None, help="The task, when MODEL is not inside a run folder."),
    video: bool = typer.Option(False, "--video", help="Also record one whole episode as a video."),
    video_out: Path | None = typer.Option(
        None, help="Where to write the video (default: ./<task>-evaluate.mp4, with --video)."
    ),
    sandbox_minimum: str | None = SandboxMinimumOpt,
) -> None:
    """Evaluate a saved policy with the task's trusted scorer, in the same sandbox as the search; optionally a video.

    The run folder is not written to: the policy is copied to a temporary folder and measured there. A video loads
    the candidate-written model.zip (unpickled) in a sandboxed worker, so it takes `run`'s sandbox preflight.
    """
    from rewardsmith.search.saved_policy import evaluate_target, find_policy

    policy = find_policy(target, candidate=candidate, task=task)
    wanted = (video_out or Path(f"{policy.spec.name}-evaluate.mp4")) if (video or video_out) else None
    if wanted is not None:
        require_sandbox_here(sandbox_minimum)
    console.print(f"evaluating {policy.label} on {episodes} fresh seeds ({policy.spec.name})", highlight=False)
    evaluation, saved = evaluate_target(policy, episodes=episodes, video=wanted)
    table = Table("fitness (trusted)", "success rate", "episode length", "ended by", title=f"{policy.spec.name}")
    lengths = evaluation.lengths or [0]
    ends = sorted(set(evaluation.ends))
    table.add_row(
        mean_pm(evaluation.fitness_mean, evaluation.fitness_std, len(evaluation.fitness)),
        cell(evaluation.success_rate),
        cell(sum(lengths) / len(lengths)),
        ", ".join(ends) or "-",
    )
    console.print(table)
    console.print("per episode: " + ", ".join(cell(f) for f in evaluation.fitness), highlight=False)
    if wanted is not None:
        console.print(f"video: {saved}" if isinstance(saved, Path) else str(saved), highlight=False, soft_wrap=True)
