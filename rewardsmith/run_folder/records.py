"""The run folder as code: the typed records stored in it and one tolerant reader (the file names are in `names`).

Records are pydantic models that ignore unknown keys and give every key a writer may omit a default, so an
older or newer run folder still reads. `read_record` returns None for a missing, unreadable or malformed file
instead of raising (`check_record` also says why, for readers that warn): readers decide what a missing record
means. `read_object` is the same reader for the free-form objects that have no record (run.json, batch.json, LLM
call records).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar

from pydantic import BaseModel, BeforeValidator, ConfigDict, RootModel, ValidationError, field_validator

from rewardsmith.files import MAX_READ_BYTES, clean_components, read_json
from rewardsmith.formatting import mean_pm
from rewardsmith.run_folder.names import (
    ANALYSIS_FILE,
    ATTEMPTS_FILE,
    BEST_DIR,
    CANDIDATE_FILE,
    CRITIC_FILE,
    EPISODES_FILE,
    EVAL_DIR,
    EVALUATION_FILE,
    EVENTS_FILE,
    FINAL_DIR,
    FRAMES_FILE,
    LLM_DIR,
    LOCK_FILE,
    METRICS_FILE,
    MODEL_FILE,
    OWNER_FILE,
    REWARD_FILE,
    RUN_FILE,
    SANDBOX_FILE,
    SCREEN_FILE,
    SMOKE_FILE,
    SUMMARY_FILE,
    TASK_FILE,
    TRAJECTORIES_FILE,
    WEIGHTS_FILE,
    cand_dir_name,
)

__all__ = [  # the file names are re-exported from `names`, their first home
    "ANALYSIS_FILE",
    "ATTEMPTS_FILE",
    "BEST_DIR",
    "CANDIDATE_FILE",
    "CRITIC_FILE",
    "EPISODES_FILE",
    "EVALUATION_FILE",
    "EVAL_DIR",
    "EVENTS_FILE",
    "FINAL_DIR",
    "FRAMES_FILE",
    "LLM_DIR",
    "LOCK_FILE",
    "METRICS_FILE",
    "MODEL_FILE",
    "OWNER_FILE",
    "REWARD_FILE",
    "RUN_FILE",
    "SANDBOX_FILE",
    "SCREEN_FILE",
    "SMOKE_FILE",
    "SUMMARY_FILE",
    "TASK_FILE",
    "TRAJECTORIES_FILE",
    "WEIGHTS_FILE",
    "cand_dir_name",
    "Record",
    "CandidateRecord",
    "Attempt",
    "Attempts",
    "Finding",
    "CriticRecord",
    "MetricsPoint",
    "Evaluation",
    "FinalSeed",
    "FinalResult",
    "RunSummary",
    "Flag",
    "Analysis",
    "as_number",
    "read_object",
    "check_record",
    "read_record",
    "Reported",
    "R",
]


class Record(BaseModel):
    """Base of the run folder's records: unknown keys are ignored, so old and new folders both read."""

    model_config = ConfigDict(extra="ignore")


def as_number(value: Any) -> float | None:
    """A JSON number as a float; None for anything else (a bool, a string, a list, null)."""
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


Reported = Annotated[float | None, BeforeValidator(as_number)]
"""A number in a file a sandboxed worker wrote: anything that is not a JSON number reads as None, so one odd
value never drops the whole line."""


class CandidateRecord(Record):
    """`candidate.json`: one candidate's outcome and what it cost."""

    id: str
    iteration: int
    index: int
    parent: str | None = None
    status: Literal["designed", "rejected", "trained", "failed"]
    reason: str = ""
    repair_rounds: int = 0
    tokens: int = 0
    cost_usd: float = 0.0
    fitness: float | None = None
    """Mean fitness of the evaluation worker's episodes (`eval/evaluation.json`), never a training worker's."""
    fitness_se: float | None = None
    """Standard error of that mean."""
    episodes: int = 0
    """Evaluation episodes behind `fitness`."""
    success_rate: float | None = None
    wall_s: float = 0.0
    timesteps: int = 0
    """Env steps of the training behind `fitness` (under successive halving: the last rung it reached)."""
    template: str = ""
    """What the accepted reward is when no model designed it (the built-in offline model's template or adapted
    shipped example, `rewardsmith.llm.template.template_label`); empty when a model wrote it."""


class Attempt(Record):
    """One entry of `attempts.json`: a sample or repair of a candidate and the critic's verdict on it."""

    attempt: int
    file: str | None = None
    accepted: bool = False
    findings: list[str] = []
    tokens: int = 0
    cost_usd: float = 0.0


class Attempts(RootModel[list[Attempt]]):
    """`attempts.json`: every attempt at a candidate, oldest first."""


class Finding(Record):
    """One finding in `critic.json` (`rewardsmith.stages.critic.CriticFinding`)."""

    stage: str = "?"
    code: str = "?"
    message: str = ""
    severity: str = "?"
    line: int | None = None


class CriticRecord(Record):
    """`critic.json`: the critic's last report on a candidate (`rewardsmith.stages.critic.CriticReport.to_dict`)."""

    accepted: bool | None = None
    """None when the report carries no verdict."""
    findings: list[Finding] = []
    stats: dict[str, Any] = {}
    tokens: int = 0
    cost_usd: float = 0.0


class MetricsPoint(Record):
    """One line of a training folder's `metrics.jsonl`: kind "train" (per-component episode sums) or "eval" (a
    learning-curve point). The training worker ran the reward and wrote it: shown, never trusted."""

    kind: str = ""
    timesteps: float
    fitness: Reported = None
    components: dict[str, float] = {}
    """Each component's mean episode sum; a value that is not a finite number is left out, names are cleaned and
    capped (`rewardsmith.files.clean_components`)."""

    @field_validator("components", mode="before")
    @classmethod
    def _numbers_only(cls, value: Any) -> dict[str, float]:
        return clean_components(value)

    @field_validator("timesteps", mode="before")
    @classmethod
    def _timesteps(cls, value: Any) -> float:
        number = as_number(value)
        if number is None:
            raise ValueError("timesteps is not a number")
        return number


class Evaluation(Record):
    """`eval/evaluation.json`: a trained policy measured by the trusted evaluation worker, which never loaded
    reward code. One entry per episode, on fresh seeds the parent drew after training ended, each episode run
    to the env's full time limit. Written only by the `evaluate` worker mode into the parent-made `eval/`
    folder (see `EVAL_DIR`)."""

    fitness: list[float] = []
    success: list[bool] = []
    lengths: list[int] = []
    ends: list[str] = []
    """Why each episode ended: the termination condition that fired, or "time limit"."""
    seeds: list[int] = []
    timesteps: int = 0
    """Env steps the evaluated policy was trained for."""
    fitness_mean: float | None = None
    fitness_std: float | None = None
    fitness_se: float | None = None
    success_rate: float | None = None


class FinalSeed(Record):
    """One seed of the final retraining."""

    seed: int
    status: str = "?"
    fitness: float | None = None
    fitness_se: float | None = None
    success_rate: float | None = None
    episodes: int | None = None
    error: str | None = None
    wall_s: float | None = None


class FinalResult(Record):
    """`final` in the run's `summary.json`: the best reward retrained on several seeds."""

    candidate: str = ""
    reward: str = "final/reward.py"
    timesteps: int | None = None
    seeds: list[FinalSeed] = []
    fitness_mean: float | None = None
    fitness_std: float | None = None
    success_mean: float | None = None

    def headline(self) -> str | None:
        """The run's result: mean ± std over the seeds that measured a fitness (`0.8912 ± 0.16 std, n=3`), or
        None while there is no mean."""
        if self.fitness_mean is None:
            return None
        measured = sum(s.fitness is not None for s in self.seeds)
        return mean_pm(self.fitness_mean, self.fitness_std, measured or len(self.seeds))


class RunSummary(Record):
    """The run's `summary.json`."""

    status: str = ""
    task: str = ""
    model: str | None = None
    best_candidate: str | None = None
    best_fitness: float | None = None
    best_seeds: list[float] = []
    """The best candidate's search fitness on each seed it was trained on at its budget (its own and its second
    seed's); empty when it has only its own (`best_fitness`)."""
    best_success_rate: float | None = None
    iterations: int = 0
    candidates: int = 0
    trained: int = 0
    rejected: int = 0
    failed: int = 0
    designed: int = 0
    repair_requests: int = 0
    templates: dict[str, str] = {}
    """Candidate id -> what it is, for each candidate that is a template rather than a model's design."""
    llm_calls: int = 0
    cached_calls: int = 0
    tokens: int = 0
    cost_usd: float | None = None
    """None in a summary that does not say (readers then add up the LLM call log)."""
    final: FinalResult | None = None
    selection: dict[str, Any] | None = None
    """How the best was chosen (`rewardsmith.search.selection.Pick.as_dict`)."""
    signal: dict[str, Any] | None = None
    """Whether the top rung carried signal (`rewardsmith.search.calibration.Signal`, with the random policy's
    fitness), judged before the final retraining; None in older runs."""
    human_normalized: float | None = None
    wall_s: float = 0.0
    error: str | None = None


class Flag(Record):
    """One analyzer flag: a stable code and what it means for this candidate."""

    code: str = "?"
    message: str = ""


class Analysis(Record):
    """`analysis.json`: the analyzer's statistics, flags and the feedback text for the designer."""

    final: dict[str, Any] = {}
    flags: list[Flag] = []
    feedback: str = ""
    problems: list[str] = []
    llm_summary: str | None = None
    """The analyzer LLM's summary, when asked for one (`--llm-analysis`)."""


R = TypeVar("R", bound=BaseModel)


def read_object(path: Path, max_bytes: int = MAX_READ_BYTES) -> dict[str, Any] | None:
    """A JSON file that holds a free-form object (run.json, batch.json, an LLM call record, the analyzer's
    statistics), or None if it is missing, unreadable or holds anything else."""
    data = read_json(Path(path), max_bytes=max_bytes)
    return data if isinstance(data, dict) else None


def check_record(path: Path, model: type[R]) -> tuple[R | None, str | None]:
    """The record in a JSON file and, when there is none, why: (None, None) for a missing file, (None,
    "unreadable") for one that is not JSON, (None, the first mismatch) for one that does not fit `model`."""
    path = Path(path)
    if not path.is_file():
        return None, None
    data = read_json(path)
    if data is None:
        return None, "unreadable"
    try:
        return model.model_validate(data), None
    except ValidationError as e:
        first = e.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "top level"
        return None, f"{where}: {first['msg']}"


def read_record(path: Path, model: type[R]) -> R | None:
    """The record in a JSON file, or None if it is missing, unreadable or does not fit `model`."""
    return check_record(path, model)[0]
