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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ValidationError

from rewardsmith.errors import RunFolderError, TaskSpecError
from rewardsmith.files import MAX_READ_BYTES, parse_json, parse_jsonl, read_jsonl
from rewardsmith.formatting import inert
from rewardsmith.run_folder.candidate import CAND_DIR, CandidateFolder
from rewardsmith.run_folder.folder import RunFolder
from rewardsmith.run_folder.index import require_run_dir
from rewardsmith.run_folder.names import (
    CANDIDATE_FILE,
    EVENTS_FILE,
    LLM_DIR,
    METRICS_FILE,
    RUN_FILE,
    SUMMARY_FILE,
    TASK_FILE,
    VIDEO_NAMES,
    Event,
)
from rewardsmith.run_folder.records import (
    Analysis,
    Attempt,
    Attempts,
    CandidateRecord,
    CriticRecord,
    Evaluation,
    Finding,
    MetricsPoint,
    RunSummary,
    as_number,
    check_record,
    read_object,
)
from rewardsmith.search.baselines import load_cached
from rewardsmith.task import TaskSpec, read_task

R = TypeVar("R", bound=BaseModel)


@dataclass
class CandidateView:
    """One candidate as a reviewer sees it; every field may be missing on a partial run."""

    id: str
    iteration: int
    index: int
    path: Path
    record: CandidateRecord | None = None
    code: str | None = None
    code_file: str | None = None
    critic: CriticRecord | None = None
    attempts: list[Attempt] = field(default_factory=list)
    evaluation: Evaluation | None = None
    """The evaluation worker's `eval/evaluation.json`: the trusted numbers."""
    train: list[MetricsPoint] = field(default_factory=list)
    evals: list[MetricsPoint] = field(default_factory=list)
    episodes: list[dict[str, Any]] = field(default_factory=list)
    analysis: Analysis | None = None
    video: Path | None = None

    @property
    def status(self) -> str:
        """designed | rejected | trained | failed, or "in progress" while it has no candidate.json."""
        return self.record.status if self.record else "in progress"

    @property
    def parent(self) -> str | None:
        return self.record.parent if self.record else None

    @property
    def fitness(self) -> float | None:
        """Fitness from candidate.json, else from the evaluation worker's evaluation.json (never from a file a
        training worker wrote)."""
        if self.record and self.record.fitness is not None:
            return self.record.fitness
        return _finite(self.evaluation.fitness_mean) if self.evaluation else None

    @property
    def success_rate(self) -> float | None:
        if self.record and self.record.success_rate is not None:
            return self.record.success_rate
        return _finite(self.evaluation.success_rate) if self.evaluation else None

    @property
    def components(self) -> dict[str, float]:
        """The reward's components (mean episode sums) in the training worker's last report: shown as reported
        by it, they decide nothing. Empty before the first report."""
        return self.train[-1].components if self.train else {}

    @property
    def verdict(self) -> str:
        """The critic's verdict on the last checked attempt: accepted, rejected or "-"."""
        if self.critic is None or self.critic.accepted is None:
            return "-"
        return "accepted" if self.critic.accepted else "rejected"

    @property
    def findings(self) -> list[Finding]:
        """The critic's findings (stage, code, message, severity, line)."""
        return self.critic.findings if self.critic else []

    @property
    def flags(self) -> list[str]:
        """The analyzer's flag codes."""
        return [f.code for f in self.analysis.flags] if self.analysis else []

    @property
    def note(self) -> str:
        """One line on why: the analyzer's flags for a trained candidate, else the loop's reason."""
        if self.status == "trained":
            return ", ".join(self.flags)
        return " ".join((self.record.reason if self.record else "").split())


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
        from rewardsmith.search.selection import best_record

        rule: Literal["lcb", "mean"] = "mean" if self.config.get("strategy") == "eureka" else "lcb"
        before = None if iteration is None else iteration + 1
        top = best_record([c.record for c in self.candidates if c.record], before=before, rule=rule)
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


def _finite(value: float | None) -> float | None:
    return value if value is not None and math.isfinite(value) else None


def _record(path: Path, model: type[R], warnings: list[str], root: Path, what: str) -> R | None:
    """The record in a JSON file, or None: a missing file is silent, one that is unreadable or does not fit the
    record is a warning."""
    record, problem = check_record(path, model)
    if problem == "unreadable":
        warnings.append(f"{path.relative_to(root)}: unreadable {what}, skipped")
    elif problem:
        warnings.append(f"{path.relative_to(root)}: not a valid {what}, skipped ({problem})")
    return record


def metrics_points(lines: list[dict[str, Any]], kind: str) -> list[MetricsPoint]:
    """The metrics lines of one kind that carry a step count, as records (others are left out silently)."""
    points = []
    for line in lines:
        if line.get("kind") == kind:
            try:
                points.append(MetricsPoint.model_validate(line))
            except ValidationError:
                continue
    return points


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


def read_candidate(root: Path, folder: Path, warnings: list[str]) -> CandidateView:
    """One candidate folder; missing files leave fields empty, corrupt ones add warnings. The files only the parent
    writes (`rewardsmith.run_folder.candidate.PARENT_ONLY`) are read only with the parent's proof: one a worker
    planted is left out with a warning. Worker-written text is made inert for the terminal."""
    cand = CandidateFolder.at(folder)
    view = CandidateView(id=cand.id, iteration=cand.iteration, index=cand.index, path=folder)
    view.record = _verified(cand, cand.record_path, CandidateRecord, warnings, root, "candidate record")
    if not cand.record_path.exists():
        warnings.append(f"{folder.relative_to(root)}: no {CANDIDATE_FILE} yet (in progress or cut short)")
    attempts = _verified(cand, cand.attempts_path, Attempts, warnings, root, "attempt list")
    view.attempts = attempts.root if attempts else []
    code_files = [cand.reward_path] + sorted(folder.glob("attempt_*.py"), key=_mtime, reverse=True)
    for code_file in (f for f in code_files if f.is_file()):
        code = cand.verified(code_file)
        if code is not None:
            view.code, view.code_file = code.decode("utf-8", errors="replace"), code_file.name
            break
        warnings.append(f"{code_file.relative_to(root)}: {NOT_THE_PARENTS}")
    view.critic = _verified(cand, cand.critic_path, CriticRecord, warnings, root, "critic report")
    if cand.metrics_path.is_file():
        metrics, problems = read_jsonl(cand.metrics_path)
        warnings += [p.replace(f"{root}/", "") for p in problems]
        view.train, view.evals = metrics_points(metrics, "train"), metrics_points(metrics, "eval")
    elif view.status == "trained":
        warnings.append(f"{folder.relative_to(root)}: trained but {METRICS_FILE} is missing (no learning curve)")
    view.evaluation = _verified(cand, cand.evaluation_path, Evaluation, warnings, root, "evaluation")
    if cand.episodes_path.is_file():
        data = cand.verified(cand.episodes_path, MAX_EPISODES_BYTES)
        if data is None:
            warnings.append(f"{cand.episodes_path.relative_to(root)}: {NOT_THE_PARENTS}")
        else:
            episodes, problems = parse_jsonl(data, cand.episodes_path)
            warnings += [p.replace(f"{root}/", "") for p in problems]
            view.episodes = episodes
    view.analysis = _verified(cand, cand.analysis_path, Analysis, warnings, root, "analysis")
    view.video = cand.video()
    for name in VIDEO_NAMES:
        if view.video is None and (folder / name).is_file():
            warnings.append(f"{(folder / name).relative_to(root)}: {NOT_THE_PARENTS}")
    return inert_view(view)


NOT_THE_PARENTS = "not written by rewardsmith (no valid proof: a worker may have planted it), ignored"
MAX_EPISODES_BYTES = 16 * 2**20


def _mtime(path: Path) -> float:
    try:
        return path.lstat().st_mtime
    except OSError:
        return 0.0


def _verified(
    cand: CandidateFolder, path: Path, model: type[R], warnings: list[str], root: Path, what: str
) -> R | None:
    """A parent-only record, read only with the parent's proof: a missing file is silent; an unproven, unreadable
    or malformed one is a warning."""
    if not path.exists():
        return None
    data = cand.verified(path, 16 * MAX_READ_BYTES)
    if data is None:
        warnings.append(f"{path.relative_to(root)}: {NOT_THE_PARENTS}")
        return None
    value = parse_json(data)
    if value is None:
        warnings.append(f"{path.relative_to(root)}: unreadable {what}, skipped")
        return None
    try:
        return model.model_validate(value)
    except ValidationError as e:
        first = e.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "top level"
        warnings.append(f"{path.relative_to(root)}: not a valid {what}, skipped ({where}: {first['msg']})")
        return None


def inert_view(view: CandidateView) -> CandidateView:
    """The candidate's text made safe to print in a terminal (`rewardsmith.formatting.inert`): code, reasons,
    findings, flags, feedback and component names are written by an LLM or a worker."""
    clean = lambda text: inert(text, markup=False)  # noqa: E731
    if view.record is not None:
        view.record = view.record.model_copy(update={"reason": clean(view.record.reason)})
    if view.code is not None:
        view.code = clean(view.code)
    view.attempts = [a.model_copy(update={"findings": [clean(f) for f in a.findings]}) for a in view.attempts]
    if view.critic is not None:
        findings = [
            f.model_copy(update={k: clean(getattr(f, k)) for k in ("stage", "code", "message", "severity")})
            for f in view.critic.findings
        ]
        view.critic = view.critic.model_copy(update={"findings": findings})
    if view.analysis is not None:
        a = view.analysis
        view.analysis = a.model_copy(
            update={
                "flags": [f.model_copy(update={"code": clean(f.code), "message": clean(f.message)}) for f in a.flags],
                "feedback": clean(a.feedback),
                "problems": [clean(p) for p in a.problems],
                "llm_summary": clean(a.llm_summary) if a.llm_summary is not None else None,
            }
        )
    view.train = [
        p.model_copy(update={"components": {clean(k): v for k, v in p.components.items()}}) for p in view.train
    ]
    return view


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
