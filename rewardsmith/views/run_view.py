"""Read a run folder for review: every candidate with its code, critic, training results and analysis.

Built on `rewardsmith.run_folder.folder.RunFolder` (the layout is documented there) but tolerant where the loop
is strict: a run that is still going, was killed, or lost files still loads. Whatever could not be read
becomes a line in `RunView.warnings` instead of an exception; only a folder that is not a run folder at
all raises `RunFolderError`.

    view = read_run(Path("runs/hopper-hop/20250101-120000-abc123"))
    view.best.code, view.candidate("2.1").analysis.feedback, view.warnings

Every JSON file is read into its record from `rewardsmith.run_folder.records` (attempts, critic report,
evaluation, metrics lines, analysis, run summary); a file that does not fit its record leaves the field empty
and adds a warning.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any, Literal, TypeVar

from pydantic import BaseModel

from rewardsmith.errors import RunFolderError, TaskSpecError
from rewardsmith.formatting import result_line, short_unit
from rewardsmith.run_folder.candidate import CAND_DIR
from rewardsmith.run_folder.folder import RunFolder
from rewardsmith.run_folder.index import require_run_dir
from rewardsmith.run_folder.names import (
    EVENTS_FILE,
    LLM_DIR,
    RUN_FILE,
    SUMMARY_FILE,
    TASK_FILE,
    Event,
)
from rewardsmith.run_folder.records import (
    RunSummary,
    as_number,
    check_record,
    read_object,
)
from rewardsmith.search.baselines import load_cached
from rewardsmith.search.evidence import Evidence, load_spread
from rewardsmith.search.live import random_fitness
from rewardsmith.search.selection import estimate
from rewardsmith.stages.designer import fitness_unit
from rewardsmith.task import TaskSpec, read_task
from rewardsmith.views.candidate_view import CandidateView, read_candidate

R = TypeVar("R", bound=BaseModel)


@dataclass
class Transcript:
    """One logged LLM call: `llm/NNNN_<role>.json`."""

    file: str
    role: str
    sample: int | None
    tokens: int
    cost_usd: float
    cached: bool
    error: str | None


@dataclass
class RunView:
    """A run folder, read as far as it goes."""

    path: Path
    info: dict[str, Any]
    status: str
    summary: RunSummary | None
    events: list[dict[str, Any]]
    candidates: list[CandidateView]
    transcripts: list[Transcript]
    spec: TaskSpec | None
    baseline: dict[str, Any] | None
    warnings: list[str]

    def result(self) -> str | None:
        """The final retraining as a newcomer reads it (`formatting.result_line`: the fitness with the scorer's
        unit, the random policy's beside it, the successful episodes), or None until there is one."""
        final = self.summary.final if self.summary else None
        if final is None or self.summary is None:
            return None
        unit = short_unit(fitness_unit(self.spec)) if self.spec else ""
        return result_line(final.model_dump(), unit, random_fitness(self.summary.model_dump()))

    @property
    def run_id(self) -> str:
        return str(self.info.get("run_id") or self.path.name)

    @property
    def task(self) -> str:
        return str((self.info.get("task") or {}).get("name") or (self.spec.name if self.spec else "?"))

    @property
    def model(self) -> str:
        return str(self.info.get("model") or "?")

    @property
    def started_at(self) -> str:
        return str(self.info.get("started_at") or "?")

    @property
    def config(self) -> dict[str, Any]:
        return self.info.get("config") or {}

    @property
    def best(self) -> CandidateView | None:
        """The best trained candidate under the loop's own selection rule (`rewardsmith.search.selection`)."""
        return self.best_until(None)

    def best_until(self, iteration: int | None) -> CandidateView | None:
        """The best trained candidate of iterations up to `iteration` (None: all), under the loop's own rule."""
        from rewardsmith.run_folder.folder import RunFolder
        from rewardsmith.search.evidence import load_evidence
        from rewardsmith.search.selection import best_record

        rule: Literal["lcb", "mean"] = "mean" if self.config.get("strategy") == "eureka" else "lcb"
        before = None if iteration is None else iteration + 1
        records = [c.record for c in self.candidates if c.record]
        top = best_record(records, before=before, rule=rule, evidence=load_evidence(RunFolder(self.path)))
        return self.candidate(top.id) if top else None

    @property
    def tokens(self) -> int:
        return sum(t.tokens for t in self.transcripts if not t.cached)

    @property
    def cost_usd(self) -> float:
        return round(sum(t.cost_usd for t in self.transcripts if not t.cached), 6)

    @property
    def iterations_done(self) -> int:
        return len({e.get("iteration") for e in self.events if e.get("event") == Event.ITERATION_DONE})

    def candidate(self, cid: str) -> CandidateView:
        """A candidate by id ("2.1"); RunFolderError naming the known ids if there is none."""
        for c in self.candidates:
            if c.id == cid:
                return c
        known = ", ".join(c.id for c in self.candidates) or "none"
        raise RunFolderError(f"{self.path}: no candidate {cid!r} (candidates: {known})")

    @cached_property
    def evidence(self) -> Evidence:
        """The between-seed evidence the pick read (`seed_spread.json` and the calibration prior); no warnings."""
        return Evidence(load_spread(self.path, self.spec))

    def seed_fitness(self, c: CandidateView) -> list[float] | None:
        """Each seed's search fitness where the search trained `c` again on a second seed at its budget (its repeat
        in `seed_spread.json`), which the pick then scored by their mean; None where it has one seed there."""
        repeat = self.evidence.repeat(c.id, c.record.timesteps) if c.record is not None else None
        return list(repeat.fitness) if repeat is not None else None

    def search_fitness(self, c: CandidateView) -> tuple[float | None, float | None]:
        """(fitness, se) as the pick compared `c` where it has a second seed (`selection.estimate`: the mean of both,
        with the se of that mean, the between-seed floor included), else its one training's fitness and se."""
        if c.record is None or self.seed_fitness(c) is None:
            return c.fitness, c.record.fitness_se if c.record else None
        mean, variance = estimate(c.record, self.evidence)
        return mean, math.sqrt(variance)

    def by_iteration(self) -> dict[int, list[CandidateView]]:
        """Candidates grouped by iteration, in order."""
        groups: dict[int, list[CandidateView]] = {}
        for c in self.candidates:
            groups.setdefault(c.iteration, []).append(c)
        return groups

    def human_normalized(self, fitness: float | None) -> float | None:
        """Eureka's human-normalised score against the cached baselines at the search budget, if cached."""
        from rewardsmith.search.baselines import normalized_score

        return normalized_score(self.spec, fitness, self.baseline) if self.spec else None


def _record(path: Path, model: type[R], warnings: list[str], root: Path, what: str) -> R | None:
    """The record in a JSON file, or None: a missing file is silent, one that is unreadable or does not fit the
    record is a warning."""
    record, problem = check_record(path, model)
    if problem == "unreadable":
        warnings.append(f"{path.relative_to(root)}: unreadable {what}, skipped")
    elif problem:
        warnings.append(f"{path.relative_to(root)}: not a valid {what}, skipped ({problem})")
    return record


def read_run(path: Path) -> RunView:
    """Load a run folder; RunFolderError if it does not exist or holds nothing a run writes."""
    path = require_run_dir(path)
    folder = RunFolder(path)
    warnings: list[str] = []
    try:
        info = folder.run_info()
    except RunFolderError:
        if not (path / EVENTS_FILE).is_file() and not list(path.glob("iter_*")):
            raise RunFolderError(f"{path}: not a run folder (no {RUN_FILE}, events.jsonl or iter_*/ inside)") from None
        info = {}
        warnings.append(f"{RUN_FILE}: missing or unreadable; task, model and config unknown")
    events, problems = folder.read_events()
    warnings += [p.replace(f"{path}/", "") for p in problems]
    spec, baseline = None, None
    if (path / TASK_FILE).is_file():
        try:
            spec = read_task(path / TASK_FILE)
            baseline = load_cached(spec, (info.get("config") or {}).get("timesteps"))
        except TaskSpecError as e:
            warnings.append(f"{TASK_FILE}: {e}")
    candidates = [read_candidate(path, d, warnings) for d in _candidate_dirs(path)]
    summary = _record(path / SUMMARY_FILE, RunSummary, warnings, path, "run summary")
    if folder.proofs.legacy and candidates:
        warnings.append("written before rewardsmith signed its files: nothing in its candidate folders is verified")
    return RunView(
        path=path,
        info=info,
        status=folder.status(),
        summary=summary,
        events=events,
        candidates=candidates,
        transcripts=read_transcripts(path, warnings),
        spec=spec,
        baseline=baseline,
        warnings=warnings,
    )


def _candidate_dirs(path: Path) -> list[Path]:
    found = [d for d in path.glob("iter_*/cand_*") if d.is_dir() and CAND_DIR.match(f"{d.parent.name}/{d.name}")]
    return sorted(found, key=lambda d: (int(d.parent.name[5:]), int(d.name[5:])))


def read_transcripts(path: Path, warnings: list[str]) -> list[Transcript]:
    """The LLM call log under `llm/`, in call order."""
    found = []
    for file in sorted((path / LLM_DIR).glob("[0-9]*_*.json")):
        call = read_object(file)
        if call is None:
            warnings.append(f"llm/{file.name}: unreadable call record, skipped")
            continue
        tokens = int(as_number(call.get("prompt_tokens")) or 0) + int(as_number(call.get("completion_tokens")) or 0)
        found.append(
            Transcript(
                file=f"llm/{file.name}",
                role=str(call.get("role", "?")),
                sample=call.get("sample"),
                tokens=tokens,
                cost_usd=float(as_number(call.get("cost_usd")) or 0.0),
                cached=bool(call.get("cached")),
                error=call.get("error"),
            )
        )
    return found
