"""`RunConfig`: every option of one search run, serialised into `run.json` so a run can be resumed and reviewed."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from rewardsmith.sandbox.probe import DEFAULT_MINIMUM

if TYPE_CHECKING:  # the CLI builds its options from this module at start-up: no task machinery then
    from rewardsmith.task import TaskSpec

Strategy = Literal["default", "eureka"]

EUREKA = {"iterations": 5, "samples": 16}
"""Eureka's published search shape: K = 16 samples, 5 iterations, every candidate trained fully."""

DEFAULT_RUNGS = (0.0625, 0.25, 1.0)
"""Fractions of `timesteps` at which successive halving compares the survivors (the last is the full budget):
with the default keep of 1/4 (eta = 4, as in Hyperband), K = 16 candidates cost about a fifth of training them all
fully (bench/strategies.py)."""
DEFAULT_KEEP = 0.25


@dataclass(frozen=True)
class Cli:
    """How a RunConfig field is offered as an option of `run` and `batch` (`rewardsmith.cli.options`), where its
    name (`--api-base`), type, constraints and description do not say it all."""

    short: str | None = None
    """A short flag beside the long one, e.g. `-m`."""
    switch: tuple[str, str] | None = None
    """A bool's on and off flags, instead of `--name/--no-name`."""
    default: str | None = None
    """The default in words, where the field's own is None or computed."""


class RunConfig(BaseModel):
    """The options of `rewardsmith run` (and, but for `task`, `out` and `workers`, of every task of a `batch`).
    Budget fields left as None take the task spec's defaults (`resolve`). Each field's description is also its
    `--help` text, its `Cli` metadata the rest of its option."""

    model_config = ConfigDict(extra="forbid")
    task: str = Field(description="Task spec name (from envs/) or path to a .toml file.")
    model: Annotated[str | None, Cli(short="-m")] = Field(
        None,
        description="litellm model name, 'local' or 'scripted:PATH' "
        "(default: $REWARDSMITH_MODEL, else by API key, else local).",
    )
    api_base: str | None = Field(
        None, description="Base URL of an OpenAI-compatible server (vLLM, Ollama and the like)."
    )
    iterations: int | None = Field(
        None, ge=1, description="Designer-critic-trainer-analyzer iterations (default: the spec's search.iterations)."
    )
    samples: int | None = Field(
        None, ge=1, description="Candidates sampled per iteration, Eureka's K (default: the spec's search.samples)."
    )
    timesteps: int | None = Field(
        None, ge=1, description="Training steps per candidate during the search (default: the spec's train.timesteps)."
    )
    final_timesteps: int | None = Field(
        None,
        ge=1,
        description="Training steps of the final retraining (default: the spec's train.final_timesteps; on the "
        "command line, --timesteps when only that is given).",
    )
    final_seeds: int | None = Field(
        None,
        ge=0,
        description="Seeds of the final retraining of the best reward (default: the spec's search.final_seeds); "
        "0 skips it.",
    )
    repair_rounds: int | None = Field(
        None,
        ge=0,
        description="Repair requests per candidate after a failed check (default: the spec's search.repair_rounds).",
    )
    iteration_retries: int = Field(
        2, ge=0, description="Times an iteration whose candidates all failed is retried, with the errors as feedback."
    )
    workers: Annotated[int, Cli(default="the number of cores")] = Field(
        default_factory=lambda: os.cpu_count() or 1, ge=1, description="Parallel training worker processes."
    )
    seed: int = Field(0, description="Seed of search training; the final seeds are seed, seed+1 and so on.")
    device: str = Field("cpu", description="Torch device for training: cpu, cuda or auto.")
    backend: Literal["auto", "sb3", "mjx"] | None = Field(
        None,
        description="Training backend: sb3 (SB3 on CPU envs), mjx (Brax PPO on MJX envs; the `mjx` extra) or auto "
        "(mjx when a GPU is visible, the task's env is supported and the job is long enough: "
        "rewardsmith.workers.backends.gpu_min_steps); "
        "default: the spec's [train] backend.",
    )
    semantic: bool | None = Field(None, description="LLM review in the critic (default: on for API models only).")
    llm_summary: bool = Field(
        False, description="Let the analyzer ask the LLM to summarise each trained policy's behaviour."
    )
    temperature: float = Field(1.0, ge=0.0, description="Sampling temperature of the designer.")
    max_tokens: int = Field(2048, ge=64, description="Completion token cap of each designer request.")
    use_cache: Annotated[bool | None, Cli(switch=("--shared-cache", "--no-cache"))] = Field(
        None,
        description="LLM answer cache: by default (None) the run's own cache only, which resume replays; "
        "--shared-cache (True) also replays the cache shared between runs (~/.cache/rewardsmith/llm); --no-cache "
        "(False) replays nothing: every call goes to the model (a resume pays again).",
    )
    screen: bool | None = Field(
        None,
        description="CARD's preference check on archived trajectories: from iteration 2 on, critic-accepted "
        "candidates are screened on earlier candidates' episodes before training, and at the first cut of "
        "successive halving every candidate is screened on its rung's episodes (rejected ones go behind passed "
        "ones; not where the task's calibration found that first-rung budget blind). Default: on for the default "
        "strategy, off for eureka (calibrated on the labelled pools: bench/screen_calibration.py and "
        "bench/strategies.py).",
    )
    videos: bool = Field(
        False,
        description="Record a policy video of every iteration's best candidate (the overall best always gets one).",
    )
    visual_feedback: bool = Field(
        False,
        description="Send a few frames of each trained candidate's best and worst evaluation episodes to the "
        "analyzer and the best candidate's to the designer's next request, as images, where the model accepts "
        "images (litellm's supports_vision, or REWARDSMITH_LLM_VISION=1).",
    )
    feedback: str | None = Field(
        None,
        description="Human feedback after each iteration but the last: 'ask' shows the candidates and reads free "
        "text or 'rank: 1.2 > 1.1' in the terminal; a FILE reads the same from a text file ('# after iteration N' "
        "headings; see rewardsmith.stages.human_feedback). Recorded in the run; resume replays it. Default: none.",
    )
    sandbox_minimum: Annotated[
        list[str] | None, Cli(default="the settings file's sandbox.minimum, else " + ",".join(DEFAULT_MINIMUM))
    ] = Field(None, description="Sandbox layers that must hold (see `rewardsmith doctor`), else the run refuses.")
    strategy: Strategy = Field(
        "default",
        description="'default': successive halving over each iteration's candidates, noise-aware selection, "
        "history in the prompt; 'eureka': Eureka's K=16 x 5 iterations, every candidate trained fully, the highest "
        "mean wins, best-only feedback.",
    )
    rungs: list[float] | None = Field(
        None,
        description="Successive halving: increasing fractions of `timesteps` at which survivors are compared, e.g. "
        "0.125,0.25,0.5,1 (a last rung below 1 leaves the rest of the budget to the final retraining, which resumes "
        "the winner). Default: the strategy's (default: the task family's first rung, rewardsmith.search.rung_evidence, "
        "then 0.25 and 1; eureka: 1, no halving).",
    )
    keep: float = Field(
        DEFAULT_KEEP,
        gt=0.0,
        le=1.0,
        description="Successive halving: fraction of a rung's candidates that go on (at least 2 where there are 2).",
    )
    stop_flat: bool = Field(
        True,
        description="Successive halving: drop a survivor whose fitness fell since its previous rung by more "
        "than the noise of the difference (a falling curve).",
    )
    finalist_seeds: int = Field(
        2,
        ge=2,
        le=3,
        description="Successive halving: seeds for the last rung's two finalists while they are within noise (2, "
        "the default; 3 trains each once more, at most 2 more trainings per iteration: it failed its held-out "
        "test on fetch-reach, see bench/replay_tables/README.md).",
    )
    crossover: bool = Field(
        False,
        description="REvolve-style crossover: from iteration 2 on, the last sample of each round asks the designer "
        "to combine the components of the two best candidates so far into one reward.",
    )
    warm_start: bool = Field(
        False,
        description="stable-eureka's warm start: from iteration 2 on, each candidate's training starts from the "
        "policy of its parent (the best so far) instead of a fresh network.",
    )
    progress_bonus: float = Field(
        0.0,
        ge=0.0,
        description="Progress counts (optional strategy): > 0 asks each candidate for `progress(state)` too (per "
        "sub-goal, in [0, 1]) and adds this times 1/sqrt(N) for the N-th visit of its discretised progress cell to "
        "the training reward; 0: off.",
    )
    progress_bins: int = Field(10, ge=1, le=100, description="Progress counts: bins per sub-goal in [0, 1].")
    out: Path | None = Field(
        None,
        description="Run folder: new or empty (a run is continued with `rewardsmith resume DIR`); default "
        "runs/<task>/<stamp>/.",
    )

    @field_validator("rungs")
    @classmethod
    def _check_rungs(cls, rungs: list[float] | None) -> list[float] | None:
        if rungs is None:
            return None
        if not rungs or any(not 0 < f <= 1 for f in rungs) or sorted(set(rungs)) != list(rungs):
            raise ValueError(f"rungs must increase strictly within (0, 1]; got {rungs}")
        return list(rungs)

    def progress_options(self) -> dict[str, float | int] | None:
        """The progress strategy's worker options (`{"beta", "bins"}`, see `rewardsmith.reward.progress`), or
        None when it is off."""
        return {"beta": self.progress_bonus, "bins": self.progress_bins} if self.progress_bonus > 0 else None

    def job_options(self) -> dict[str, Any]:
        """What every critic and training job of this run is told besides its own budget: the progress strategy's
        options under "progress" when it is on, the training backend under "backend" when one is chosen, and
        with `auto` the run's longest training under "longest_training" (once the budgets are resolved), so the
        critic traces a reward for MJX only when some training of the run may use it."""
        progress = self.progress_options()
        options: dict[str, Any] = {"progress": progress} if progress else {}
        if self.backend is not None:
            options["backend"] = self.backend
        if self.backend == "auto" and isinstance(self.timesteps, int):
            final = self.final_timesteps if isinstance(self.final_timesteps, int) and self.final_seeds else 0
            options["longest_training"] = max(self.timesteps, final)
        return options

    def rung_fractions(self) -> list[float]:
        """The rungs in effect: the configured ones, else the strategy's default."""
        if self.rungs is not None:
            return list(self.rungs)
        return [1.0] if self.strategy == "eureka" else list(DEFAULT_RUNGS)

    def resolve(self, spec: TaskSpec) -> ResolvedConfig:
        """A copy with every budget filled in (from Eureka's shape for `strategy="eureka"`, else from the spec),
        as recorded in run.json: a `ResolvedConfig`, whose budgets are plain ints. Resolving a resolved config
        changes nothing, so an old run.json that kept None budgets resolves the same way on resume."""
        eureka = self.strategy == "eureka"
        defaults = {
            "iterations": EUREKA["iterations"] if eureka else spec.search.iterations,
            "samples": EUREKA["samples"] if eureka else spec.search.samples,
            "timesteps": spec.train.timesteps,
            "final_timesteps": spec.train.final_timesteps,
            "final_seeds": spec.search.final_seeds,
            "repair_rounds": spec.search.repair_rounds,
            "screen": not eureka,
        }
        filled = {k: v for k, v in defaults.items() if getattr(self, k) is None}
        return ResolvedConfig.model_validate({**self.model_dump(), **filled})


class ResolvedConfig(RunConfig):
    """A `RunConfig` with every budget filled in (`RunConfig.resolve`): what a run works with, so no budget is
    defaulted again downstream."""

    iterations: int = Field(ge=1)
    samples: int = Field(ge=1)
    timesteps: int = Field(ge=1)
    final_timesteps: int = Field(ge=1)
    final_seeds: int = Field(ge=0)
    repair_rounds: int = Field(ge=0)
    screen: bool
