"""Live progress of a batch: one line per task (iteration, what its candidates are doing, best so far, tokens and
cost, then finished / failed), and the summary table at the end.

Each task's loop reports to `progress.task(name)`, an object with the loop's `Progress` interface; the
batch view owns start/stop. `BatchLive` redraws a rich table on a terminal; `BatchPlain` prints
timestamped lines prefixed with the task name (through `PlainProgress`) when stdout is not a terminal.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any, Protocol

from rich.console import Console, ConsoleOptions, RenderResult
from rich.live import Live
from rich.table import Table
from rich.text import Text

from rewardsmith.formatting import cell, inert, mean_pm, with_seeds
from rewardsmith.search.eta import Throughput
from rewardsmith.search.live import PlainProgress, Progress, describe_state, describe_status


class BatchProgress(Protocol):
    """What a batch reports to."""

    def task(self, name: str) -> Progress: ...

    def finish(self, name: str, status: str, error: str | None) -> None: ...

    def start(self) -> None: ...

    def stop(self) -> None: ...


class TaskView:
    """The `Progress` one task's loop sees: it records the task's state and tells the batch view."""

    def __init__(self, name: str, changed) -> None:
        self.name = name
        self.candidates: dict[str, str] = {}
        self.fields: dict[str, Any] = {}
        self.outcome = ""
        self.throughput = Throughput()
        self._changed = changed

    def update(self, candidate_id: str, state: str, **fields: Any) -> None:
        shown = fields
        if fields.get("total"):  # this task's own measured throughput (`rewardsmith.search.eta`)
            eta = self.throughput.report(candidate_id, state, fields.get("done", 0), fields["total"])
            shown = {**fields, "eta": eta}
        else:
            self.throughput.moved(candidate_id)
        self.candidates[candidate_id] = describe_state(state, shown)
        self._changed(self, "update", candidate_id, state, fields)

    def status(self, **fields: Any) -> None:
        self.fields.update(fields)
        self._changed(self, "status", None, None, fields)

    def log(self, message: str) -> None:
        self._changed(self, "log", None, message, {})

    def start(self) -> None:
        pass

    def stop(self) -> None:
        pass

    def line(self) -> str:
        """The task's one line: the candidates in flight, or its outcome once it ended."""
        if self.outcome:
            return self.outcome
        busy = [
            f"{cid} {line}"
            for cid, line in self.candidates.items()
            if not line.startswith(("analysed", "rejected", "failed", "trained"))
        ]
        return ", ".join(busy[-4:]) or ("starting" if not self.candidates else "between steps")


class BatchPlain:
    """Timestamped log lines: `halfcheetah-run 1.2 training 50%`, `halfcheetah-run: iteration 2 | ...`."""

    def __init__(self, console: Console | None = None) -> None:
        self.plain = PlainProgress(console)
        self._views: dict[str, TaskView] = {}
        self._said: dict[str, str] = {}
        self._lock = threading.Lock()

    def task(self, name: str) -> TaskView:
        return self._views.setdefault(name, TaskView(name, self._on_change))

    def _on_change(self, view: TaskView, kind: str, candidate_id: str | None, state: Any, fields: dict) -> None:
        if kind == "update":
            self.plain.update(f"{view.name} {candidate_id}", state, group=view.name, **fields)
        elif kind == "log":
            self.plain.log(f"{view.name}: {state}")
        else:
            line = describe_status(view.fields)
            with self._lock:
                if self._said.get(view.name) == line:
                    return
                self._said[view.name] = line
            self.plain.log(f"{view.name}: {line}")

    def finish(self, name: str, status: str, error: str | None) -> None:
        self.plain.log(f"{name}: {status}" + (f": {inert(error, markup=False)}" if error else ""))

    def start(self) -> None:
        pass

    def stop(self) -> None:
        pass


class BatchLive:
    """A rich Live table with one row per task, redrawn a few times a second."""

    def __init__(self, names: list[str], console: Console | None = None) -> None:
        self.console = console or Console()
        self._views = {name: TaskView(name, self._on_change) for name in names}
        self._live = Live(console=self.console, refresh_per_second=4, get_renderable=self._render)

    def _render(self) -> Table:
        table = Table("task", "status", "now", box=None, pad_edge=False)
        for view in list(self._views.values()):
            style = (
                "red"
                if view.outcome.startswith("failed") or view.outcome.startswith("interrupted")
                else "green"
                if view.outcome.startswith("finished")
                else ""
            )
            table.add_row(view.name, describe_status(view.fields), Text(view.line()[:100], style=style))
        return table

    def task(self, name: str) -> TaskView:
        return self._views.setdefault(name, TaskView(name, self._on_change))

    def _on_change(self, view: TaskView, kind: str, candidate_id: str | None, state: Any, fields: dict) -> None:
        if kind == "log":
            self._live.console.print(f"{view.name}: {state}", markup=False, highlight=False)

    def finish(self, name: str, status: str, error: str | None) -> None:
        self.task(name).outcome = status + (f": {inert(error, markup=False)}" if error else "")

    def start(self) -> None:
        self._live.start()

    def stop(self) -> None:
        self._live.stop()


def make_batch_progress(names: list[str], console: Console | None = None) -> BatchProgress:
    """The live table on a terminal, plain log lines otherwise."""
    console = console or Console()
    return BatchLive(names, console) if console.is_terminal else BatchPlain(console)


def summary_table(summary: dict[str, Any], folder: Path | None = None) -> BatchSummary:
    """The batch table of summary.json (see `BatchSummary`); with the batch `folder`, each run folder's path."""
    return BatchSummary(summary, folder)


def _final_text(r: dict[str, Any]) -> str:
    if r.get("final_fitness_mean") is None:
        return "-"
    if r.get("final_seeds"):
        return mean_pm(r["final_fitness_mean"], r.get("final_fitness_std"), int(r["final_seeds"]))
    return f"{cell(r['final_fitness_mean'])} ± {cell(r.get('final_fitness_std') or 0.0, 2)} std"


def searched(r: dict[str, Any]) -> str:
    """A task's best search fitness, "xN" after it where it is the mean of N seeds (`formatting.pick_number`)."""
    seeds = r.get("best_seeds")
    return with_seeds(r.get("best_fitness"), seeds if isinstance(seeds, int) else 1)


class BatchSummary:
    """One row per task: its result (the final retraining, mean ± std over seeds), the best candidate and its
    search fitness, success, human-normalised score, tokens, cost, wall time; then the totals. Each task's run
    folder (or error) gets a whole line of its own, never cut. Below `WIDE` columns every task is a few lines
    instead of a table row."""

    WIDE = 140

    def __init__(self, summary: dict[str, Any], folder: Path | None = None) -> None:
        self.summary, self.folder = summary, folder

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        summary, rows = self.summary, self.summary.get("tasks", [])
        totals = summary.get("totals", {})
        title = f"batch {summary.get('batch_id', '?')}: {summary.get('status', '?')}"
        if options.max_width < self.WIDE:
            yield Text(title, style="bold")
            for r in rows:
                yield Text(str(r["task"]), style="bold", no_wrap=True, overflow="ignore")
                yield Text(
                    f"  {r['status']} · result {_final_text(r)} · best {cell(r.get('best_candidate'))} "
                    f"(search fitness {searched(r)}) · human-norm {cell(r.get('human_normalized'))}"
                    f" · {r.get('tokens') or 0:,} tokens · ${r.get('cost_usd') or 0.0:.4f} · {cell(r.get('wall_s'))} s"
                )
                yield from self._where(r, self.folder)
            yield Text(
                f"all: {totals.get('finished', 0)}/{totals.get('tasks', 0)} finished · {totals.get('tokens', 0):,} "
                f"tokens · ${totals.get('cost_usd', 0.0):.4f} · {cell(summary.get('wall_s'))} s",
                style="bold",
            )
            return
        table = Table(
            "task", "status", "result (final)", "best", "search fitness", "success", "human-norm", "tokens",
            "cost $", "wall s", title=title,
        )  # fmt: skip
        table.columns[0].no_wrap = True
        for r in rows:
            success = r.get("final_success_mean")
            success = success if success is not None else r.get("best_success_rate")
            table.add_row(
                r["task"], r["status"], _final_text(r), cell(r.get("best_candidate")), searched(r),
                cell(success), cell(r.get("human_normalized")), f"{r.get('tokens') or 0:,}",
                f"{r.get('cost_usd') or 0.0:.4f}", cell(r.get("wall_s")),
            )  # fmt: skip
        table.add_section()
        table.add_row(
            "all", f"{totals.get('finished', 0)}/{totals.get('tasks', 0)} finished", "", "", "", "", "",
            f"{totals.get('tokens', 0):,}", f"{totals.get('cost_usd', 0.0):.4f}", cell(summary.get("wall_s")),
        )  # fmt: skip
        yield table
        for r in rows:
            yield from self._where(r, self.folder, label=True)

    @staticmethod
    def _where(r: dict[str, Any], folder: Path | None, label: bool = False) -> RenderResult:
        """The task's run folder (inside the batch folder, as `review` takes it), or its error."""
        run_dir = str(folder / r["run_dir"]) if folder is not None and r.get("run_dir") else r.get("run_dir")
        note = run_dir if r.get("status") == "finished" else (r.get("error") or run_dir or "")
        if note:
            prefix = f"{r['task']}: " if label else "  "
            yield Text(prefix + inert(str(note), markup=False), no_wrap=True, overflow="ignore")
