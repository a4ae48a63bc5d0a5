"""One candidate folder read for review: `CandidateView` and `read_candidate`.

The files only the parent writes (`rewardsmith.run_folder.candidate.PARENT_ONLY`) are read through
`CandidateFolder`'s verifying reader: one a worker planted is left out with a warning, never shown. The training
worker's own files (metrics) are read capped and shown as reported. Text an LLM or a worker wrote is made inert
for the terminal (`rewardsmith.formatting.inert`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from rewardsmith.files import MAX_READ_BYTES, parse_json, parse_jsonl, read_jsonl
from rewardsmith.formatting import inert
from rewardsmith.run_folder.candidate import CandidateFolder
from rewardsmith.run_folder.names import CANDIDATE_FILE, METRICS_FILE, VIDEO_NAMES
from rewardsmith.run_folder.records import (
    Analysis,
    Attempt,
    Attempts,
    CandidateRecord,
    CriticRecord,
    Evaluation,
    Finding,
    MetricsPoint,
)

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


def _finite(value: float | None) -> float | None:
    return value if value is not None and math.isfinite(value) else None


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
