"""Terminal views of runs for `rewardsmith runs` and `rewardsmith review`: rich renderables built from
`rewardsmith.views.run_view` records, so they work on finished, running, interrupted and damaged runs alike.
"""

from __future__ import annotations

import difflib
import io
from pathlib import Path
from typing import Any

from rich import box
from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.panel import Panel
from rich.syntax import Syntax
from rich.table import Table
from rich.text import Text

from rewardsmith.errors import RunFolderError
from rewardsmith.formatting import cell, search_fitness, with_seeds
from rewardsmith.run_folder.index import RunRow
from rewardsmith.run_folder.records import (
    BEST_DIR,
    CANDIDATE_FILE,
    SUMMARY_FILE,
    CandidateRecord,
    FinalResult,
    RunSummary,
    read_record,
)
from rewardsmith.views.candidate_view import CandidateView
from rewardsmith.views.run_view import RunView

STATUS_STYLE = {
    "finished": "green",
    "running": "cyan",
    "failed": "red",
    "interrupted": "yellow",
    "trained": "green",
    "rejected": "red",
    "designed": "yellow",
    "in progress": "cyan",
    "accepted": "green",
}


def styled(word: str) -> Text:
    return Text(word, style=STATUS_STYLE.get(word, ""))


def when(stamp: str) -> str:
    """An ISO UTC time as `YYYY-MM-DD HH:MM`."""
    return stamp.replace("T", " ")[:16] if stamp and stamp != "?" else "?"


def run_result(path: Path) -> str:
    """A run's headline for listings: the final retraining's fitness (mean ± std over seeds, n), else the best
    candidate's search fitness, labelled as such, else "-"."""
    summary = read_record(path / SUMMARY_FILE, RunSummary) or RunSummary()
    if summary.final and (headline := summary.final.headline()):
        return headline
    best = read_record(path / BEST_DIR / CANDIDATE_FILE, CandidateRecord)
    fitness = summary.best_fitness if summary.best_candidate else best.fitness if best else None
    return f"search {cell(fitness, 3)} (no final yet)" if fitness is not None else "-"


def runs_json(rows: list[RunRow]) -> list[dict[str, Any]]:
    """`rewardsmith runs --json`: one object per run; `result` is the final retraining (null until there is one),
    `best_search_fitness` the best candidate's fitness during the search."""
    out = []
    for row in rows:
        summary = read_record(row.path / SUMMARY_FILE, RunSummary)
        final = summary.final if summary else None
        result = None
        if final is not None and final.fitness_mean is not None:
            result = {
                "fitness_mean": final.fitness_mean,
                "fitness_std": final.fitness_std,
                "n": sum(x.fitness is not None for x in final.seeds),
                "per_seed": [x.fitness for x in final.seeds],
                "timesteps": final.timesteps,
                "candidate": final.candidate or None,
                "success_mean": final.success_mean,
            }
        out.append(
            {
                "path": str(row.path),
                "name": row.name,
                "task": row.task,
                "model": row.model,
                "status": row.status,
                "result": result,
                "best_candidate": row.best_candidate,
                "best_search_fitness": row.best_fitness,
                "iterations": row.iterations,
                "cost_usd": row.cost_usd,
                "started": row.started,
                "batch": row.batch,
            }
        )
    return out


def natural_width(renderable: RenderableType) -> int:
    """The columns `renderable` takes when nothing is cut or wrapped (rendered once on a very wide console)."""
    probe = Console(width=10_000, file=io.StringIO(), color_system=None)
    with probe.capture() as captured:
        probe.print(renderable)
    return max((cell_len(line.rstrip()) for line in captured.get().splitlines()), default=0)


class RunsTable:
    """One line per run: where, task, model, status, result, best candidate, iterations, cost, start time.

    The result is the final retraining (mean ± std over seeds, n); a run without one shows its best search
    fitness, labelled "search". Where the table would not fit the terminal whole (no cell cut), the run's path
    gets a line of its own (never cut or split: it is what `review` and `report` take) and task, model and start
    time a dim line under it.
    """

    def __init__(self, rows: list[RunRow], title: str) -> None:
        self.rows, self.title = rows, title

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        table = self._table()
        if natural_width(table) > options.max_width:
            yield from self._lines()
            return
        yield table

    def _table(self) -> Table:
        table = Table(title=self.title, title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False)
        for name in ("run", "task", "model", "status", "result (final)", "best", "iter", "cost $", "started"):
            table.add_column(name, no_wrap=True)
        for row in self.rows:
            table.add_row(
                row.name,
                row.task,
                row.model,
                styled(row.status),
                run_result(row.path),
                row.best_candidate or "-",
                row.iterations,
                f"{row.cost_usd:.3f}",
                when(row.started),
            )
        return table

    def _lines(self) -> RenderResult:
        """Narrow: per run, its path alone on a line (whole, even past the edge), then the facts, wrapped."""
        yield Text(self.title, style="bold")
        for row in self.rows:
            yield Text(row.name, style="bold", no_wrap=True, overflow="ignore")
            facts = Text("  ").append_text(styled(row.status))
            facts.append(f" · result {run_result(row.path)} · best {row.best_candidate or '-'}")
            facts.append(f" · iterations {row.iterations} · ${row.cost_usd:.3f}")
            yield facts
            yield Text(f"  {row.task} · {row.model} · started {when(row.started)}", style="dim")


def final_of(view: RunView) -> FinalResult | None:
    """The run's final retraining, from its summary.json (None until there is one)."""
    return view.summary.final if view.summary else None


def run_header(view: RunView) -> Panel:
    """The run in a few lines: the result (final retraining), then id, task, model, status, progress, cost, best."""
    best = view.best
    lines = Text()
    lines.append(f"{view.task}", style="bold").append(f"  {view.run_id}\n")
    final = final_of(view)
    headline = view.result()
    if final and headline:
        lines.append("result ", style="bold").append(f"{headline}", style="bold green")
        lines.append(
            f"  (final retraining of {final.candidate or '?'}, {cell(final.timesteps)} steps; trusted fitness)\n"
        )
    else:
        lines.append("result ", style="bold").append("- (no final retraining yet)\n", style="dim")
    lines.append("status ").append_text(styled(view.status))
    lines.append(f"   model {view.model}   started {when(view.started_at)} UTC\n")
    lines.append(
        f"iterations done {view.iterations_done}/{view.config.get('iterations', '?')}   "
        f"candidates {len(view.candidates)}   LLM calls {len(view.transcripts)}{replayed_note(view)}   "
        f"tokens paid {view.tokens:,}   cost ${view.cost_usd:.4f}\n"
    )
    if best:
        summary = view.summary
        seeds = summary.best_seeds if summary is not None and summary.best_candidate == best.id else None
        lines.append(
            f"best candidate {best.id}: search fitness "
            f"{search_fitness(best.fitness, best.record.fitness_se if best.record else None, seeds)}, "
            f"success {cell(best.success_rate)}, human-normalised {cell(view.human_normalized(best.fitness))}"
        )
    else:
        lines.append("no trained candidate yet")
    selection = view.summary.selection if view.summary else None
    if selection:
        from rewardsmith.search.confidence import describe_confidence
        from rewardsmith.search.selection import describe_selection

        lines.append(Text("\nselection ").append(describe_selection(selection)))
        if selection.get("confidence"):
            lines.append(Text("\nconfidence ").append(describe_confidence(selection["confidence"])))
    return Panel(lines, title=str(view.path), title_align="left", expand=True)


def replayed_note(view: RunView) -> str:
    """`` (2 replayed from cache, 1,234 tokens not paid again)`` when some calls came from a cache."""
    replayed = [t for t in view.transcripts if t.cached]
    if not replayed:
        return ""
    return f" ({len(replayed)} replayed from cache, {sum(t.tokens for t in replayed):,} tokens not paid again)"


class CandidatesTable:
    """Every candidate by iteration: status, critic verdict, fitness, success, human-normalised, tokens, parent.

    Flags and reasons get their own column on wide terminals and are listed under the table on narrow ones.
    """

    WIDE = 110

    def __init__(self, view: RunView) -> None:
        self.view = view

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        view, best = self.view, self.view.best
        wide = options.max_width >= self.WIDE
        table = Table(title="candidates", title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False)
        for name in ("id", "parent", "status", "critic", "search\nfitness", "success", "h-norm", "tokens"):
            table.add_column(
                name,
                no_wrap=True,
                justify="right" if name in ("search\nfitness", "success", "h-norm", "tokens") else "left",
            )
        if wide:
            table.add_column("flags / reason", overflow="fold")
        notes = Text()
        repeated = False
        for group in view.by_iteration().values():
            for c in group:
                is_best = best is not None and c.id == best.id
                fitness, seeds = view.search_fitness(c)[0], view.seed_fitness(c)  # the number the pick compared
                repeated = repeated or bool(seeds)
                cells: list[RenderableType] = [
                    Text(c.id + ("*" if is_best else ""), style="bold" if is_best else ""),
                    Text(c.parent or "-"),
                    styled(c.status),
                    styled(c.verdict),
                    Text(with_seeds(fitness, len(seeds or ()), 3)),
                    cell(c.success_rate, 2),
                    cell(view.human_normalized(fitness), 3),
                    cell(c.record.tokens if c.record else None),
                ]
                table.add_row(*cells, *([Text(c.note or "-")] if wide else []))
                if not wide and c.note:
                    notes.append(f"{c.id}: ", style="bold").append(f"{c.note}\n")
            table.add_section()
        caption = [f"* best: {best.id}"] if best else []
        if repeated:
            caption.append("xN: the mean of N seeds at the candidate's budget, as the pick compared it")
        if caption:
            table.caption = "; ".join(caption)
        yield table
        if notes:
            yield notes


def code_view(c: CandidateView, title: str) -> Panel:
    """A candidate's reward file, highlighted with line numbers."""
    if c.code is None:
        return Panel(Text("no code saved for this candidate", style="dim"), title=title, title_align="left")
    return Panel(
        Syntax(c.code, "python", line_numbers=True, word_wrap=True, theme="ansi_dark"),
        title=f"{title} ({c.path.name}/{c.code_file})",
        title_align="left",
    )


def warnings_view(warnings: list[str]) -> RenderableType:
    """The problems met while reading, listed last so they never hide the results."""
    if not warnings:
        return Text("")
    text = Text(f"{len(warnings)} warning(s) while reading the run:\n", style="yellow")
    for w in warnings:
        text.append(f"  - {w}\n", style="yellow")
    return text


def review_view(view: RunView) -> Group:
    """The whole run: header, candidate table, the best reward."""
    best = view.best
    parts: list[RenderableType] = [run_header(view), CandidatesTable(view)]
    parts.append(code_view(best, f"best reward: {best.id}") if best else Text("no best reward yet", style="dim"))
    parts.append(warnings_view(view.warnings))
    return Group(*parts)


def candidate_view(view: RunView, cid: str) -> Group:
    """One candidate: its record, critic findings, analyzer feedback and flags, attempts and code."""
    c = view.candidate(cid)
    facts = Table.grid(padding=(0, 2))
    facts.add_column(style="bold")
    facts.add_column()
    for label, value in (
        ("status", styled(c.status)),
        ("parent", Text(c.parent or "-")),
        ("critic", styled(c.verdict)),
        ("search fitness", cell(c.fitness)),
        ("success", cell(c.success_rate)),
        ("human-normalised", cell(view.human_normalized(c.fitness))),
        ("tokens", cell(c.record.tokens if c.record else None)),
        ("cost $", f"{c.record.cost_usd:.4f}" if c.record else "-"),
        ("repairs", cell(c.record.repair_rounds if c.record else None)),
        ("video", str(c.video.relative_to(view.path)) if c.video else "-"),
    ):
        facts.add_row(label, value)
    if c.record and c.record.reason:
        facts.add_row("reason", Text(c.record.reason, overflow="fold"))
    parts: list[RenderableType] = [Panel(facts, title=f"candidate {c.id}", title_align="left")]
    findings = Table("stage", "severity", "code", "line", "message", title="critic findings", title_justify="left")
    for f in c.findings:
        findings.add_row(
            Text(f.stage),  # Text, not a markup string: a finding may carry "[link=...]"
            Text(f.severity, style="red" if f.severity == "error" else "yellow"),
            Text(f.code),
            cell(f.line),
            Text(f.message, overflow="fold"),
        )
    parts.append(
        findings if c.findings else Text("critic findings: none" if c.critic else "critic: no report", style="dim")
    )
    parts.append(analysis_view(c))
    parts.append(code_view(c, f"reward {c.id}"))
    parts.append(warnings_view(view.warnings))
    return Group(*parts)


def analysis_view(c: CandidateView) -> RenderableType:
    """The analyzer's flags and feedback text (and its LLM summary, if any)."""
    if c.analysis is None:
        why = "not trained" if c.status in ("rejected", "designed", "in progress") else "no analysis.json"
        return Text(f"analysis: none ({why})", style="dim")
    text = Text()
    for flag in c.analysis.flags:
        text.append(f"[{flag.code}] ", style="bold yellow").append(f"{flag.message}\n")
    text.append(c.analysis.feedback or "(no feedback text)")
    if c.analysis.llm_summary:
        text.append("\n\nLLM summary: ", style="bold").append(c.analysis.llm_summary)
    return Panel(text, title="analyzer", title_align="left")


def diff_pair(view: RunView, a: str | None, b: str | None) -> tuple[CandidateView, CandidateView]:
    """The two candidates to compare: B defaults to the best; A to B's parent, else (a first-iteration
    candidate) the best candidate before B by search fitness, else the candidate just before B."""
    if b is None:
        if view.best is None:
            raise RunFolderError(
                f"{view.path}: no trained candidate yet, so there is no best to diff; pass --a and --b"
            )
        b = view.best.id
    new = view.candidate(b)
    if a is None:
        a = new.parent or _earlier(view, new)
    return view.candidate(a), new


def _earlier(view: RunView, new: CandidateView) -> str:
    """The best trained candidate before `new` by search fitness (else the one just before it); for the very
    first candidate, the best other one."""
    others = [c for c in view.candidates if c.id != new.id and c.code]
    before = [c for c in others if (c.iteration, c.index) < (new.iteration, new.index)] or others
    if not before:
        raise RunFolderError(f"{view.path}: candidate {new.id} is the only one with code; there is nothing to diff")
    trained = [c for c in before if c.fitness is not None]
    return max(trained, key=lambda c: c.fitness or 0.0).id if trained else before[-1].id


def unified_diff(old: CandidateView, new: CandidateView) -> list[str]:
    """Unified diff lines between two candidates' reward files (the loop's header comment left out)."""
    from rewardsmith.run_folder.names import strip_header

    def lines(c: CandidateView) -> list[str]:
        return (strip_header(c.code) + "\n").splitlines(keepends=True) if c.code else []

    return list(
        difflib.unified_diff(
            lines(old),
            lines(new),
            fromfile=f"{old.id}/{old.code_file or 'reward.py'}",
            tofile=f"{new.id}/{new.code_file or 'reward.py'}",
        )
    )


def diff_view(view: RunView, a: str | None, b: str | None) -> Group:
    """A coloured unified diff between two candidates, with their fitness for context."""
    old, new = diff_pair(view, a, b)
    text = Text()
    for line in unified_diff(old, new) or ["(the two reward files are identical)\n"]:
        style = (
            "bold"
            if line.startswith(("+++", "---"))
            else "green"
            if line.startswith("+")
            else "red"
            if line.startswith("-")
            else "cyan"
            if line.startswith("@@")
            else ""
        )
        text.append(line, style=style)
    title = f"{old.id} (fitness {cell(old.fitness)}) → {new.id} (fitness {cell(new.fitness)}); search fitness"
    return Group(Panel(text, title=title, title_align="left"), warnings_view(view.warnings))
