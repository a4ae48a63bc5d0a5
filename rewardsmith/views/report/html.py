"""Render run and batch reports: Jinja2 templates (package data), pygments-highlighted code and diffs."""

from __future__ import annotations

import base64
import re
from pathlib import Path
from typing import Any

from jinja2 import Environment, PackageLoader, select_autoescape
from markupsafe import Markup
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import DiffLexer, PythonLexer

from rewardsmith.errors import RunFolderError
from rewardsmith.formatting import cell
from rewardsmith.views.candidate_view import CandidateView
from rewardsmith.views.report import plots
from rewardsmith.views.run_view import RunView
from rewardsmith.views.tables import final_of, unified_diff

FORMATTER = HtmlFormatter(cssclass="code", linenos=False)
MAX_EMBED_BYTES = 4 << 20
"""A video up to this size is embedded in the page (base64); a larger one is linked, and the page says so."""
DUPLICATE = re.compile(r"\[dedupe\] same code as candidate (\d+\.\d+)")


def duplicate_of(c: CandidateView) -> str | None:
    """The id of the earlier candidate whose code this rejected one repeated, if that is why it was rejected."""
    match = DUPLICATE.search(c.note) if c.status == "rejected" else None
    return match.group(1) if match else None


def video_source(view: RunView, c: CandidateView) -> dict[str, Any] | None:
    """How the page shows a candidate's video: embedded as a data URI when small enough, else a relative link
    (`embedded` False: the page then needs its run folder beside it)."""
    if c.video is None:
        return None
    relative = str(c.video.relative_to(view.path))
    size = c.video.stat().st_size
    mime = "video/mp4" if c.video.suffix == ".mp4" else "image/gif"
    if size <= MAX_EMBED_BYTES:
        data = base64.b64encode(c.video.read_bytes()).decode("ascii")
        return {"src": f"data:{mime};base64,{data}", "file": relative, "embedded": True, "mp4": mime == "video/mp4"}
    return {"src": relative, "file": relative, "embedded": False, "mp4": mime == "video/mp4", "bytes": size}


def _env() -> Environment:
    env = Environment(
        loader=PackageLoader("rewardsmith.views.report", "templates"),
        autoescape=select_autoescape(["j2"]),
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["num"] = cell
    return env


def code_html(code: str | None) -> Markup | None:
    """A reward file highlighted as HTML (styles come from `pygments_css`)."""
    return Markup(highlight(code, PythonLexer(), FORMATTER)) if code else None


def diff_html(view: RunView, c: CandidateView) -> Markup | None:
    """The highlighted unified diff of a candidate against its parent, if it has one with code."""
    if not c.parent or c.code is None:
        return None
    try:
        parent = view.candidate(c.parent)
    except RunFolderError:  # the parent folder was lost from a damaged run: no diff
        return None
    lines = unified_diff(parent, c)
    return Markup(highlight("".join(lines), DiffLexer(), FORMATTER)) if lines else None


def iteration_bests(view: RunView) -> list[CandidateView]:
    """The best trained candidate of each iteration (the ones that get a video)."""
    bests = []
    for group in view.by_iteration().values():
        trained = [c for c in group if c.status == "trained" and c.fitness is not None]
        if trained:
            bests.append(max(trained, key=lambda c: (c.fitness, c.success_rate or 0.0)))
    return bests


def candidate_context(view: RunView, c: CandidateView, featured: set[str]) -> dict[str, Any]:
    """What the template shows for one candidate."""
    compared = view.search_fitness(c)[0]  # the number the pick compared
    return {
        "c": c,
        "anchor": f"cand-{c.id.replace('.', '-')}",
        "featured": c.id in featured,
        "human": view.human_normalized(compared),
        "seeds": view.seed_fitness(c),
        "compared": compared,
        "code": code_html(c.code),
        "diff": diff_html(view, c),
        "components": plots.component_plot(c) if c.id in featured else None,
        "video": video_source(view, c),
        "duplicate_of": duplicate_of(c),
        "feedback": c.analysis.feedback if c.analysis else None,
        "llm_summary": c.analysis.llm_summary if c.analysis else None,
        "analysis_flags": c.analysis.flags if c.analysis else [],
    }


def render_run(view: RunView, warnings: list[str]) -> str:
    """The whole report.html of one run, as a string."""
    best, final = view.best, final_of(view)
    featured = {c.id for c in iteration_bests(view)} | ({best.id} if best else set())
    context = {
        "view": view,
        "best": best,
        "best_seeds": view.seed_fitness(best) if best else None,
        "best_compared": view.search_fitness(best)[0] if best else None,
        "warnings": warnings,
        "css": FORMATTER.get_style_defs(".code"),
        "progress": plots.iteration_progress(view),
        "curves": plots.learning_curves(view),
        "iterations": {
            i: [candidate_context(view, c, featured) for c in group] for i, group in view.by_iteration().items()
        },
        "best_human": view.human_normalized(view.search_fitness(best)[0]) if best else None,
        "final": final,
        "headline": final.headline() if final else None,
        "final_curves": plots.final_curves(view.path, final),
        "empty_iterations": plots.empty_iterations(view),
        "replayed": [t for t in view.transcripts if t.cached],
    }
    return _env().get_template("report.html.j2").render(**context)


def render_batch(path: Path, manifest: dict[str, Any], rows: list[dict[str, Any]], warnings: list[str]) -> str:
    """batch_report.html: one row per run (task, status, best, link to its report)."""
    return (
        _env().get_template("batch_report.html.j2").render(path=path, manifest=manifest, rows=rows, warnings=warnings)
    )
