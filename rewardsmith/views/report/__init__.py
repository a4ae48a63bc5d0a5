"""`rewardsmith report`: one self-contained HTML file per run (`report.html`) or batch (`batch_report.html`).

No network: CSS is inline, plots are inline SVG, code is highlighted by pygments, videos up to 4 MB are embedded
(base64; a larger one is linked by a path relative to the report, and the page says it needs its run folder).

    path, warnings = write_report(Path("runs/hopper-hop/20250101-120000-abc123"))

`html` renders the Jinja2 templates (package data under `templates/`), `plots` draws the inline SVG plots.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from rewardsmith.errors import RunFolderError
from rewardsmith.formatting import with_seeds
from rewardsmith.run_folder.index import batch_runs, is_batch, is_run, run_row
from rewardsmith.run_folder.names import BATCH_REPORT_FILE, MODEL_FILE, REPORT_FILE
from rewardsmith.views.run_view import read_run
from rewardsmith.views.tables import run_result


def _write(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def record_missing_videos(run_dir: Path) -> list[str]:
    """Record a video for each iteration's best candidate that has a policy but no video, one sandboxed render
    worker per CPU core at once; returns problems."""
    from rewardsmith.stages.video import VideoError, record_video
    from rewardsmith.views.report.html import iteration_bests
    from rewardsmith.workers.executor import LocalExecutor

    view = read_run(run_dir)
    if view.spec is None:
        return []
    spec, seed = view.spec, int(view.config.get("seed") or 0)
    todo = [c for c in iteration_bests(view) if c.video is None and (c.path / MODEL_FILE).is_file()]

    def one(path: Path) -> str:
        try:
            record_video(spec, path, executor=executor, seed=seed)
        except VideoError as e:
            return str(e)
        return ""

    executor = LocalExecutor(max(1, min(len(todo), os.cpu_count() or 1)))
    try:
        with ThreadPoolExecutor(executor.workers) as pool:
            problems = list(pool.map(one, [c.path for c in todo]))
    finally:
        executor.shutdown()
    return [f"{c.id}: {problem}" for c, problem in zip(todo, problems, strict=True) if problem]


def write_report(run_dir: Path, *, videos: bool = True) -> tuple[Path, list[str]]:
    """Write `report.html` into the run folder; returns its path and what could not be read or rendered."""
    from rewardsmith.views.report.html import render_run

    run_dir = Path(run_dir)
    read_run(run_dir)  # RunFolderError early for a folder that is not a run
    problems = record_missing_videos(run_dir) if videos else []
    view = read_run(run_dir)
    warnings = view.warnings + problems
    path = run_dir / REPORT_FILE
    _write(path, render_run(view, warnings))
    return path, warnings


def write_batch_report(batch_dir: Path, *, videos: bool = True) -> tuple[Path, list[str]]:
    """Write each run's report and `batch_report.html` linking them, with one summary row per run."""
    from rewardsmith.views.report.html import render_batch

    batch_dir = Path(batch_dir)
    manifest, runs = batch_runs(batch_dir)
    if not runs:
        raise RunFolderError(f"{batch_dir}: no run folders inside (expected <batch>/<task>/<stamp>/run.json)")
    rows, warnings = [], []
    for run in runs:
        report, problems = write_report(run, videos=videos)
        warnings += [f"{run.relative_to(batch_dir)}: {p}" for p in problems]
        row = run_row(run, batch_dir)
        view = read_run(run)
        best = view.best
        fitness, seeds = (view.search_fitness(best)[0], view.seed_fitness(best)) if best else (None, None)
        final, success = view.summary.final if view.summary else None, best.success_rate if best else None
        rows.append(
            {
                "row": row,
                "report": str(report.relative_to(batch_dir)),
                "result": run_result(run),
                "search": with_seeds(fitness, len(seeds or ())),  # the number the pick compared
                "human": view.human_normalized(fitness),
                "success": final.success_mean if final and final.success_mean is not None else success,
                "candidates": len(view.candidates),
            }
        )
    path = batch_dir / BATCH_REPORT_FILE
    _write(path, render_batch(batch_dir, manifest, rows, warnings))
    return path, warnings


def write_any_report(path: Path, *, videos: bool = True) -> tuple[Path, list[str]]:
    """A run report for a run folder, a batch report for a batch folder."""
    path = Path(path)
    if not path.is_dir():
        raise RunFolderError(f"{path}: no such run or batch folder")
    if not is_run(path) and is_batch(path):
        return write_batch_report(path, videos=videos)
    return write_report(path, videos=videos)
