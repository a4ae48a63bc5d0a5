"""A pool's recorded trainings (`Table`, bench/replay_tables/<task>.jsonl) and the table-backed trainer the replay
hands to the real successive halving (`TableTrainer`). Used by `bench/replay_strategies.py`.

A row's label is the hand label (from the pool file name); `warnings` are the critic's tie-break warnings per pool
file (`critic_warnings`, recorded by `bench/critic_warnings.py --record`), for the replayed search's
`Evidence.warnings`; `screens` are the first cut's screen verdicts per pool file (`recorded_screens`, recorded by
`bench/screen_calibration.py --rung-rho --min-signal 0` on first-rung policies), for its `screen`.
"""

from __future__ import annotations

import json
import random
import statistics
from dataclasses import dataclass, field
from pathlib import Path

from rewardsmith.run_folder.records import CandidateRecord
from rewardsmith.search.evidence import Evidence
from rewardsmith.search.spread import Repeat
from rewardsmith.stages.screen import ScreenReport


@dataclass(frozen=True)
class Table:
    """One pool's recorded trainings: rows {file, label, seed, budgets, fitness, se, episodes} on shared budgets,
    the critic's tie-break warnings ({file: why}) and the first cut's screen verdicts ({file: verdict})."""

    task: str
    budgets: list[int]
    rows: list[dict]
    warnings: dict[str, str] = field(default_factory=dict)
    screens: dict[str, ScreenReport] = field(default_factory=dict)
    screens_at: dict[int, dict[str, ScreenReport]] = field(default_factory=dict)
    """Screen verdicts recorded at another first rung than the default's, by its steps (`screen/<task>.<steps>.jsonl`):
    a replay with that first rung screens with them, as a run with it would."""

    @classmethod
    def load(
        cls,
        path: Path,
        seeds: set[int] | None = None,
        warnings: dict[str, str] | None = None,
        screens: dict[str, ScreenReport] | None = None,
    ) -> Table:
        """The rows of `path` (only training `seeds`, if given), with the critic's `warnings` and the first cut's
        `screens`; every row must carry the same budgets."""
        rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        rows = [r for r in rows if seeds is None or r["seed"] in seeds]
        budgets = sorted({tuple(r["budgets"]) for r in rows})
        if len(budgets) != 1:
            raise SystemExit(f"{path}: rows on different budgets {budgets}; one table per budget list")
        return cls(path.stem, list(budgets[0]), rows, dict(warnings or {}), dict(screens or {}))

    @property
    def files(self) -> list[str]:
        """The pool's rewards, in a fixed order."""
        return sorted({r["file"] for r in self.rows})

    def label(self, file: str) -> str:
        """The reward's hand label (from its pool file name)."""
        return next(r["label"] for r in self.rows if r["file"] == file)

    def seeds(self, file: str) -> list[int]:
        """The training seeds recorded for a reward."""
        return sorted(r["seed"] for r in self.rows if r["file"] == file)

    def row(self, file: str, seed: int) -> dict:
        """The recorded training of `file` on `seed`."""
        return next(r for r in self.rows if r["file"] == file and r["seed"] == seed)

    def converged(self, file: str, leave_out: int | None = None) -> float | None:
        """The reward's full-budget fitness averaged over its recorded seeds (but `leave_out`); None if none."""
        values = [
            r["fitness"][-1]
            for r in self.rows
            if r["file"] == file and r["seed"] != leave_out and r["fitness"][-1] is not None
        ]
        return statistics.fmean(values) if values else None


def training_seed(search_seed: int, file: str, seeds: list[int]) -> int:
    """The recorded training a candidate of `file` gets in search seed `search_seed`: deterministic, and
    independent between rewards (a real search trains each candidate on its own)."""
    return random.Random(f"{search_seed}/{file}").choice(sorted(seeds))


def next_seed(used: list[int], seeds: list[int]) -> int | None:
    """The recorded seed one more repeat uses: the next after the last of `used` (cyclic) that is not in `used`;
    None when every recorded seed is used."""
    order = sorted(seeds)
    start = order.index(used[-1])
    return next((s for k in range(1, len(order)) if (s := order[(start + k) % len(order)]) not in used), None)


class TableTrainer:
    """`TrainRung` and `RepeatRung` backed by a `Table`: one search seed's candidates, one per reward."""

    def __init__(self, table: Table, search_seed: int, evidence: Evidence | None = None) -> None:
        self.table, self.evidence = table, evidence
        self.file = {f"1.{j}": file for j, file in enumerate(table.files, 1)}
        self.seed = {cid: training_seed(search_seed, f, table.seeds(f)) for cid, f in self.file.items()}

    def records(self) -> list[CandidateRecord]:
        """The designed candidates, one per reward of the pool."""
        return [CandidateRecord(id=cid, iteration=1, index=j, status="designed") for j, cid in enumerate(self.file, 1)]

    def point(self, cid: str, seed: int, budget: int) -> tuple[float | None, float, int]:
        """(fitness, se, episodes) of a candidate's reward on `seed` at `budget`, from the table."""
        if budget not in self.table.budgets:
            raise ValueError(f"{self.table.task}: no recorded budget {budget:,} (the table has {self.table.budgets})")
        row, k = self.table.row(self.file[cid], seed), self.table.budgets.index(budget)
        se = (row.get("se") or [None] * len(row["fitness"]))[k]
        episodes = (row.get("episodes") or [0] * len(row["fitness"]))[k]
        return row["fitness"][k], float(se) if se is not None else 0.0, int(episodes or 0)

    def train(self, record: CandidateRecord, budget: int, resume: bool) -> CandidateRecord:
        """The candidate's recorded training at `budget` (the table's chains resume, as halving's rungs do)."""
        fitness, se, episodes = self.point(record.id, self.seed[record.id], budget)
        if fitness is None:
            return record.model_copy(update={"status": "failed", "reason": "the recorded training failed"})
        update = {"status": "trained", "fitness": fitness, "fitness_se": se, "episodes": episodes, "timesteps": budget}
        return record.model_copy(update=update)

    def repeat(self, pair: list[CandidateRecord], budget: int, seeds: int = 2) -> int:
        """Each close candidate with fewer than `seeds` trainings at `budget`: its recorded training on its next
        seed (`next_seed`), added to the evidence's spread, as a run's repeater adds one more seed."""
        steps = 0
        for record in pair:
            if self.evidence is None or self.evidence.spread is None or record.fitness is None:
                continue
            existing = self.evidence.spread.repeat_of(record.id, budget)
            used = list(existing.seeds) if existing is not None else [self.seed[record.id]]
            seed = next_seed(used, self.table.seeds(self.file[record.id]))
            if len(used) >= seeds or seed is None:
                continue  # as a run's repeater: a seed already trained here is not paid twice
            fitness, se, _ = self.point(record.id, seed, budget)
            if fitness is None:
                continue
            repeat = (
                existing.with_seed(seed, float(fitness), se)
                if existing is not None
                else Repeat(record.id, budget, (used[0], seed), (float(record.fitness), float(fitness)),
                            (record.fitness_se or 0.0, se))
            )  # fmt: skip
            self.evidence.spread.add(repeat)
            steps += budget
        return steps


def critic_warnings(path: Path) -> dict[str, str]:
    """{pool file: the critic's tie-break warning} from a `bench/critic_warnings.py --record` file: the rewards the
    critic accepted whose report carries a warning of a kind the selection weighs (`TIE_BREAK_KINDS`)."""
    if not path.is_file():
        raise SystemExit(f"{path}: no recorded critic warnings; run bench/critic_warnings.py --record {path.parent}")
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return {r["file"]: r["tie_break"] for r in rows if r.get("accepted") and r.get("tie_break")}


def recorded_screens(path: Path) -> dict[str, ScreenReport]:
    """{pool file: the screen's verdict} from a `bench/screen_calibration.py` rows file (each reward judged on the
    other rewards' first-rung policies and the random policy, every verdict counting, `--min-signal 0`), with the
    per-episode returns the first cut's recheck of the critic's warnings reads; a reward without a verdict has none."""
    if not path.is_file():
        raise SystemExit(f"{path}: no recorded screen; see bench/replay_tables/README.md (screen/)")
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return {
        r["file"]: ScreenReport(
            r["outcome"] == "passed", r["accuracy"], None, r["episodes"], r["message"], details=r.get("details") or []
        )
        for r in rows
        if r["outcome"] != "no verdict"
    }
