"""Find runs and batches under a folder (default `runs/`) and summarise each in one row, cheaply.

A run folder holds `run.json` (see `rewardsmith.run_folder.folder`). A batch folder holds `batch.json` (written by
`rewardsmith batch`) or, failing that, run folders directly inside it. Anything else is skipped: a
listing never fails because of a stray or half-written folder.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rewardsmith.errors import RunFolderError
from rewardsmith.run_folder.folder import MAX_RUN_FILE_BYTES, RunFolder
from rewardsmith.run_folder.names import BATCH_FILE, Event
from rewardsmith.run_folder.records import (
    BEST_DIR,
    CANDIDATE_FILE,
    RUN_FILE,
    SUMMARY_FILE,
    CandidateRecord,
    RunSummary,
    read_object,
    read_record,
)

NO_RUN_FOLDER = "{path}: no such run folder (expected runs/<task>/<stamp>/; list them with `rewardsmith runs`)"
"""The one wording for a missing run folder, used by every verb that takes RUN_DIR."""


def require_run_dir(path: Path) -> Path:
    """`path` if it is a folder; RunFolderError in the shared wording otherwise."""
    if not Path(path).is_dir():
        raise RunFolderError(NO_RUN_FOLDER.format(path=path))
    return Path(path)


MAX_DEPTH = 4
SKIP = {"baselines", "llm", "final", "best", "tb", "critic", "screen", "video"}


@dataclass
class RunRow:
    """One run as listed by `rewardsmith runs`."""

    path: Path
    name: str
    task: str
    model: str
    status: str
    best_candidate: str | None
    best_fitness: float | None
    iterations: str
    cost_usd: float
    started: str
    batch: str | None = None


def is_run(path: Path) -> bool:
    return (Path(path) / RUN_FILE).is_file()


def is_batch(path: Path) -> bool:
    """A folder with batch.json, or with run folders directly inside (or one level down, per task)."""
    path = Path(path)
    if (path / BATCH_FILE).is_file():
        return True
    if not path.is_dir() or is_run(path):
        return False
    return any(is_run(p) for p in path.glob("*/")) or any(is_run(p) for p in path.glob("*/*/"))


def find_runs(root: Path) -> list[Path]:
    """Every run folder under `root` (at most MAX_DEPTH levels down), sorted by path."""
    root = Path(root)
    if not root.is_dir():
        raise RunFolderError(f"{root}: no such folder (runs are written to runs/ by `rewardsmith run`)")
    if is_run(root):
        return [root]
    found: list[Path] = []
    frontier = [root]
    for _ in range(MAX_DEPTH):
        nxt: list[Path] = []
        for folder in frontier:
            try:
                children = sorted(
                    p
                    for p in folder.iterdir()
                    if p.is_dir() and p.name not in SKIP and not p.name.startswith((".", "iter_"))
                )
            except OSError:
                continue
            for child in children:
                (found if is_run(child) else nxt).append(child)
        frontier = nxt
    return sorted(found)


def batch_of(run: Path, root: Path) -> str | None:
    """The name of the batch folder (one with batch.json) that holds `run`, below `root`."""
    for parent in run.parents:
        if parent == root.parent or parent == parent.parent:
            break
        if (parent / BATCH_FILE).is_file():
            return parent.name
    return None


def run_row(path: Path, root: Path) -> RunRow:
    """One run's row from run.json, summary.json, events, run.lock, best/ and the LLM log (no metrics read)."""
    folder = RunFolder(path)
    info = read_object(path / RUN_FILE, max_bytes=MAX_RUN_FILE_BYTES) or {}
    summary = read_record(path / SUMMARY_FILE, RunSummary) or RunSummary()
    best = read_record(path / BEST_DIR / CANDIDATE_FILE, CandidateRecord)
    done = {e.get("iteration") for e in folder.events() if e.get("event") == Event.ITERATION_DONE}
    planned = (info.get("config") or {}).get("iterations")
    return RunRow(
        path=path,
        name=str(path.relative_to(root)) if path != root else path.name,
        task=str((info.get("task") or {}).get("name") or summary.task or "?"),
        model=str(info.get("model") or "?"),
        status=folder.status(),
        best_candidate=summary.best_candidate or (best.id if best else None),
        best_fitness=summary.best_fitness if summary.best_candidate else best.fitness if best else None,
        iterations=f"{len(done)}/{planned or '?'}",
        cost_usd=summary.cost_usd if summary.cost_usd is not None else folder.llm_totals()["cost_usd"],
        started=str(info.get("started_at") or "?"),
        batch=batch_of(path, root),
    )


def list_runs(root: Path) -> list[RunRow]:
    """Rows for every run under `root`, newest start first."""
    root = Path(root)
    rows = [run_row(p, root) for p in find_runs(root)]
    return sorted(rows, key=lambda r: (r.started, r.name), reverse=True)


def batch_runs(path: Path) -> tuple[dict[str, Any], list[Path]]:
    """A batch folder's manifest (empty if it has none) and its run folders."""
    path = Path(path)
    if not path.is_dir():
        raise RunFolderError(f"{path}: no such batch folder")
    return read_object(path / BATCH_FILE, max_bytes=MAX_RUN_FILE_BYTES) or {}, find_runs(path)
