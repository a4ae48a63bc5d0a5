"""The live view of a run (the progress display): one line per candidate (designing, critic, training x%, analysed, rejected: why),
plus the iteration, the best fitness so far, tokens and cost.

Two views behind one small interface: `LiveProgress` (a rich Live table, for terminals) and
`PlainProgress` (timestamped log lines, when stdout is not a terminal). Both are thread-safe.

    progress.update("1.2", "training", done=512, total=1024)
    progress.status(iteration=1, best_fitness=0.3, tokens=1200, cost_usd=0.01)
    progress.log("iteration 1 done")
"""

from __future__ import annotations

import statistics
import threading
import time
from typing import Any, Protocol

from rich import box
from rich.console import Console, Group
from rich.live import Live
from rich.table import Table
from rich.text import Text

from rewardsmith.files import read_json
from rewardsmith.formatting import cell, inert, plural, result_line, search_fitness, short_unit
from rewardsmith.run_folder.folder import RunFolder
from rewardsmith.search.eta import ENOUGH_JOBS, Eta, Throughput, clock


class Progress(Protocol):
    """What the loop reports to; `start`/`stop` bracket a run."""

    def update(self, candidate_id: str, state: str, **fields: Any) -> None: ...

    def status(self, **fields: Any) -> None: ...

    def log(self, message: str) -> None: ...

    def start(self) -> None: ...

    def stop(self) -> None: ...


PLAIN_EVERY_S = 30
"""In plain (non-terminal) output, a reply still in flight is shown again this often."""


class ReplyClock:
    """How long LLM replies take in this run, from the moment a round asks to the moment each reply is in
    (replayed ones left out), and so when the ones in flight should arrive. Measured on the built-in local model
    too: its requests queue behind one lock, but the samples of one round share their prompt, so llama.cpp reuses
    it and they arrive within seconds of each other (e.g. 87 s and 89 s)."""

    def __init__(self) -> None:
        self._seconds: list[float] = []
        self._lock = threading.Lock()

    def record(self, seconds: float, cached: bool) -> None:
        """One reply arrived `seconds` after it was asked for."""
        if not cached and seconds > 0:
            with self._lock:
                self._seconds.append(seconds)

    @property
    def measured(self) -> bool:
        """Whether any reply of this run was measured."""
        with self._lock:
            return bool(self._seconds)

    def eta(self, elapsed: float) -> Eta | None:
        """Time left for a reply asked for `elapsed` seconds ago (rough until `ENOUGH_JOBS` replies were measured);
        None when no reply was measured yet or the typical time has run out."""
        with self._lock:
            typical = statistics.median(self._seconds) if self._seconds else None
            rough = len(self._seconds) < ENOUGH_JOBS
        return None if typical is None or typical <= elapsed else Eta(typical - elapsed, rough)


class ReplyTicker:
    """While a round of LLM requests runs, show each waiting candidate's elapsed time and ETA once a second.

    with ReplyTicker(progress, clock, ["1.1", "1.2"]) as ticker:
        ... ticker.arrived("1.1", design.latency_s, design.cached) ...
    """

    def __init__(self, progress: Progress, clock: ReplyClock, ids: list[str], state: str = "designing") -> None:
        self.progress, self.clock, self.state = progress, clock, state
        self._waiting = list(ids)
        self._started = time.monotonic()
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._run, name="reply-ticker", daemon=True)

    def arrived(self, cid: str, seconds: float, cached: bool) -> None:
        """The reply for `cid` is in."""
        self.clock.record(seconds, cached)
        with self._lock:
            if cid in self._waiting:
                self._waiting.remove(cid)

    def tick(self) -> None:
        """Show every waiting candidate once."""
        elapsed = time.monotonic() - self._started
        with self._lock:
            waiting = list(self._waiting)
        for cid in waiting:
            eta = self.clock.eta(elapsed)
            self.progress.update(cid, self.state, elapsed=elapsed, eta=eta, overdue=eta is None and self.clock.measured)

    def _run(self) -> None:
        while not self._stop.wait(1.0):
            self.tick()

    def __enter__(self) -> ReplyTicker:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def describe_state(state: str, fields: dict[str, Any]) -> str:
    """A candidate's state in words: `training 40% (ETA 1m20s)`, `designing 45s (ETA ~30s, rough)`,
    `rejected: <reason>`, `analysed: fitness 0.31 at 1,024 steps`. `eta` is an `Eta` (`rewardsmith.search.eta`)."""
    eta = fields.get("eta")
    if fields.get("total"):  # training or evaluating: a share of the steps
        share = f"{state} {min(100.0, 100 * fields.get('done', 0) / fields['total']):.0f}%"
        return share + (f" ({eta.describe()})" if eta is not None else "")
    if fields.get("elapsed") is not None:  # an LLM reply in flight: ETA from this run's earlier replies
        if eta is not None:
            return f"{state} {clock(fields['elapsed'])} ({eta.describe()})"
        late = "taking longer than this run's typical reply" if fields.get("overdue") else "ETA after the first reply"
        return f"{state} {clock(fields['elapsed'])} ({late})"
    if fields.get("reason"):
        return f"{state}: {inert(fields['reason'], markup=False)}"
    if fields.get("fitness") is not None:
        return f"{state}: fitness {fields['fitness']:.4g}" + (
            f" at {fields['steps']:,} steps" if fields.get("steps") else ""
        )
    return state


def describe_status(fields: dict[str, Any]) -> str:
    """The run-level line: iteration, best so far, tokens, cost."""
    parts = []
    if fields.get("iteration") is not None:
        parts.append(f"iteration {fields['iteration']}")
    if fields.get("best_fitness") is not None:
        steps = f" at {fields['best_steps']:,} steps" if fields.get("best_steps") else ""
        seeds = f" x{fields['best_seeds']}" if (fields.get("best_seeds") or 1) > 1 else ""  # a mean of seeds
        parts.append(
            f"best {fields.get('best_candidate', '?')}: search fitness {fields['best_fitness']:.4g}{seeds}{steps}"
        )
    parts.append(f"{int(fields.get('tokens', 0)):,} tokens, ${float(fields.get('cost_usd', 0.0)):.4f}")
    return " | ".join(parts)


class PlainProgress:
    """Log lines on each state change (training progress in 25% steps), for pipes and CI logs. `group` (a batch's
    task name) keeps each task's measured throughput apart."""

    def __init__(self, console: Console | None = None) -> None:
        self.console = console or Console(highlight=False)
        self._lock = threading.Lock()
        self._throughput = Throughput()
        self._last: dict[str, str] = {}
        self._next: dict[str, float] = {}
        self._status: dict[str, Any] = {}

    def _print(self, message: str) -> None:
        message = inert(message, markup=False)
        self.console.print(f"[{time.strftime('%H:%M:%S')}] {message}", markup=False, highlight=False, soft_wrap=True)

    def update(self, candidate_id: str, state: str, group: str = "", **fields: Any) -> None:
        if fields.get("total"):
            eta = self._throughput.report(candidate_id, f"{group} {state}", fields.get("done", 0), fields["total"])
            quarter = fields.get("done", 0) // (fields["total"] / 4) * (fields["total"] / 4)
            line = describe_state(state, {**fields, "done": quarter})
            with self._lock:
                if self._last.get(candidate_id) == line:
                    return
                self._last[candidate_id] = line
                self._print(f"{candidate_id} " + describe_state(state, {**fields, "done": quarter, "eta": eta}))
            return
        self._throughput.moved(candidate_id)
        line = describe_state(state, fields)
        with self._lock:
            if fields.get("elapsed") is not None:  # a reply in flight: a line every PLAIN_EVERY_S seconds
                key = f"{candidate_id} {state}"
                if fields["elapsed"] < self._next.get(key, PLAIN_EVERY_S):
                    return
                self._next[key] = fields["elapsed"] // PLAIN_EVERY_S * PLAIN_EVERY_S + PLAIN_EVERY_S
            elif self._last.get(candidate_id) == line:
                return
            self._last[candidate_id] = line
            self._print(f"{candidate_id} {line}")

    def status(self, **fields: Any) -> None:
        with self._lock:
            merged = {**self._status, **fields}
            if merged != self._status:
                self._status = merged
                self._print(describe_status(merged))

    def log(self, message: str) -> None:
        with self._lock:
            self._print(message)

    def start(self) -> None:
        pass

    def stop(self) -> None:
        pass


class LiveProgress:
    """A rich Live view: a status line and a table of candidates, redrawn a few times a second."""

    def __init__(self, console: Console | None = None) -> None:
        self.console = console or Console()
        self._lock = threading.Lock()
        self._throughput = Throughput()
        self._rows: dict[str, str] = {}
        self._status: dict[str, Any] = {}
        self._live = Live(
            self._render(), console=self.console, refresh_per_second=4, transient=False, get_renderable=self._render
        )

    def _render(self) -> Group:
        table = Table("candidate", "state", box=None, pad_edge=False)
        for candidate_id, line in list(self._rows.items())[-20:]:
            style = "red" if line.startswith(("rejected", "failed")) else "green" if line.startswith("analysed") else ""
            table.add_row(candidate_id, Text(line, style=style))
        return Group(Text(describe_status(self._status), style="bold"), table)

    def update(self, candidate_id: str, state: str, **fields: Any) -> None:
        if fields.get("total"):
            fields = {
                **fields,
                "eta": self._throughput.report(candidate_id, state, fields.get("done", 0), fields["total"]),
            }
        else:
            self._throughput.moved(candidate_id)
        with self._lock:
            self._rows[candidate_id] = describe_state(state, fields)

    def status(self, **fields: Any) -> None:
        with self._lock:
            self._status.update(fields)

    def log(self, message: str) -> None:
        self._live.console.print(inert(message, markup=False), markup=False, highlight=False)

    def start(self) -> None:
        self._live.start()

    def stop(self) -> None:
        self._live.stop()


def make_progress(console: Console | None = None) -> Progress:
    """The live view on a terminal, plain log lines otherwise."""
    console = console or Console()
    return LiveProgress(console) if console.is_terminal else PlainProgress(console)


def replayed_calls(folder: RunFolder) -> tuple[int, int]:
    """Calls answered from a cache in this run, and their tokens (counted once, when first paid)."""
    calls = tokens = 0
    for path in sorted((folder.path / "llm").glob("[0-9]*_*.json")):
        call = read_json(path)
        if isinstance(call, dict) and call.get("cached") and call.get("response") is not None:
            calls += 1
            tokens += int(call.get("prompt_tokens") or 0) + int(call.get("completion_tokens") or 0)
    return calls, tokens


def signal_row(signal: dict | None) -> dict[str, str]:
    """A `signal` row for the run table when the top rung carried no signal (nothing learned, or peers within
    noise), with the random policy's trusted fitness; nothing when the ranking meant something."""
    if not signal or signal.get("verdict") in (None, "learned"):
        return {}
    random = signal.get("random_fitness")
    reference = f" (random policy {random:.4g})" if isinstance(random, (int, float)) else ""
    return {"signal": f"{signal.get('message', '')}{reference}"}


def random_fitness(summary: dict[str, Any]) -> float | None:
    """The random policy's trusted fitness that the run measured (summary.json `signal`), or None."""
    value = (summary.get("signal") or {}).get("random_fitness")
    return float(value) if isinstance(value, (int, float)) else None


def result_tables(folder: RunFolder) -> list[Table | Text]:
    """The end-of-run view: a table of candidates, their flags or rejection reasons, then the run overall."""
    from rewardsmith.search.baselines import load_cached, normalized_score
    from rewardsmith.search.confidence import describe_confidence
    from rewardsmith.search.selection import describe_selection
    from rewardsmith.stages.designer import fitness_unit

    spec, config, summary = folder.spec(), folder.config(), folder.summary() or {}
    search_baseline = load_cached(spec, config.timesteps)
    per = Table(
        title=f"{spec.name}: candidates", box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, collapse_padding=True
    )
    for header in ("id", "from", "status", "search\nfitness", "success", "h-norm", "fixes", "tokens", "$", "wall s"):
        per.add_column(header, no_wrap=True, min_width=max(map(len, header.splitlines())))
    notes = Text()
    for r in folder.candidates():
        analysis = folder.analysis(r) or {}
        note = ", ".join(f.get("code", "?") for f in analysis.get("flags", [])) if r.status == "trained" else r.reason
        if r.template:  # say plainly which rewards no model designed
            note = f"TEMPLATE ({r.template})" + (f"; {note}" if note else "")
        per.add_row(
            r.id,
            r.parent or ("template" if r.template else "-"),
            r.status,
            cell(r.fitness, 3),
            cell(r.success_rate, 2),
            cell(normalized_score(spec, r.fitness, search_baseline), 3),
            str(r.repair_rounds),
            f"{r.tokens:,}",
            f"{r.cost_usd:.3f}",
            f"{r.wall_s:.0f}",
        )
        if note:
            text = inert(" ".join(note.split())[:200], markup=False)
            notes.append(f"{r.id}: {text}\n", style="red" if r.status != "trained" else "")
    final = summary.get("final") or {}
    overall = Table("run", "", title=f"{spec.name}: run", show_header=False)
    overall.columns[0].no_wrap = True
    overall.columns[1].overflow = "fold"  # a long path (the calibrate command's spec) folds whole, never cut to "…"
    replayed, replayed_tokens = replayed_calls(folder)
    best = next((r for r in folder.candidates() if r.id == summary.get("best_candidate")), None)
    searched = search_fitness(summary.get("best_fitness"), best.fitness_se if best else None, summary.get("best_seeds"))
    rows = {
        "result": f"{headline} — final retraining of {final.get('candidate', '?')} "
        f"({final.get('timesteps', 0):,} steps; trusted fitness)"
        if (headline := result_line(final, short_unit(fitness_unit(spec)), random_fitness(summary)))
        else "- (no final retraining)",
        "status": summary.get("status", folder.status()),
        "best candidate": f"{cell(summary.get('best_candidate'))}: search fitness {searched}, "
        f"success {cell(summary.get('best_success_rate'))}",
        "selection": describe_selection(summary.get("selection")),
        "confidence": describe_confidence((summary.get("selection") or {}).get("confidence")),
        **signal_row(summary.get("signal")),
        "human-normalised": cell(summary.get("human_normalized")),
        "candidates": f"{plural(summary.get('candidates', 0), 'candidate')} in "
        f"{plural(summary.get('iterations', 0), 'iteration')}: "
        f"{summary.get('trained', 0)} trained, {summary.get('rejected', 0)} rejected, "
        f"{summary.get('failed', 0)} failed, {plural(summary.get('repair_requests', 0), 'repair request')}",
        "LLM": f"{plural(summary.get('llm_calls', 0), 'call')}, {summary.get('tokens', 0):,} tokens paid, "
        f"${summary.get('cost_usd', 0.0):.4f}"
        + (f"; {replayed} replayed from cache ({replayed_tokens:,} tokens not paid again)" if replayed else ""),
        "wall time": f"{summary.get('wall_s', 0.0):.0f} s",
    }
    if summary.get("error"):
        rows["error"] = summary["error"]
    for key, value in rows.items():
        overall.add_row(key, value)
    return [per, notes, overall]
