"""Strategies replayed from recorded trainings: many search seeds per pool at no training cost.

THIS IS A REPLAY, NOT A RUN. `bench/rung_rho.py` trained every runnable reward of a labelled pool on a few seeds
through the rung budgets (each resumed from the previous one's weights), recording the trusted fitness, its standard
error and episode count at each (bench/replay_tables/). Here the REAL `successive_halving` and pick (the default's
lower-bound rule with the between-seed floor, second-seed repeats, lone-survivor revival) run with a table-backed
trainer: each candidate gets its reward's recorded training on one seed, drawn per (search seed, reward)
(`training_seed`); a second-seed repeat uses the reward's next recorded seed. The Eureka-style strategy trains every
candidate at the full budget and picks the highest mean. Not replayed: designer, critic, screen, critic tie-break.

Printed per pool: hit rate (a good-labelled reward returned, binomial se), how often the best reward by the
converged ranking is returned, search steps relative to Eureka's (and for a whole run with final seeds), where the
default's steps went (`bench/replay_steps.py`: first rung, later rungs, revival, second seeds below and at the last
rung, the final retraining, and the fewest the rungs allow), each rung's Spearman rho with the converged ranking
(the full budget averaged over the OTHER seeds), and the goal table. `--ablations` adds the default with each of its
protections taken out (`ABLATIONS`), to see what each costs in steps and in hit rate.

    PYTHONPATH=$PWD .venv/bin/python bench/replay_strategies.py --search-seeds 100 --ablations
    PYTHONPATH=$PWD .venv/bin/python bench/replay_strategies.py --first 0.0625,0.125,0.25 --training-seeds 0,1
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import sys
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path

from rewardsmith.config import DEFAULT_KEEP
from rewardsmith.run_folder.records import CandidateRecord
from rewardsmith.search.evidence import Evidence
from rewardsmith.search.halving import MAX_KEPT_ON_NOISE, first_rung_minimum, rung_budgets, successive_halving
from rewardsmith.search.rung_evidence import LATER_RUNGS, first_rung
from rewardsmith.search.selection import Rule, distinguishable, pick, ranked
from rewardsmith.search.spread import Repeat, SeedSpread
from rewardsmith.task import load_task

sys.path.insert(0, str(Path(__file__).parent))  # its sibling, also when a test loads this file by path
from replay_pool import labels_earned, rung_rho
from replay_steps import fewest_steps, spent, where_steps_went

TABLES = Path(__file__).parent / "replay_tables"


@dataclass(frozen=True)
class Table:
    """One pool's recorded trainings: rows {file, label, seed, budgets, fitness, se, episodes} on shared budgets."""

    task: str
    budgets: list[int]
    rows: list[dict]

    @classmethod
    def load(cls, path: Path, seeds: set[int] | None = None) -> Table:
        """The rows of `path` (only training `seeds`, if given); every row must carry the same budgets."""
        rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        rows = [r for r in rows if seeds is None or r["seed"] in seeds]
        budgets = sorted({tuple(r["budgets"]) for r in rows})
        if len(budgets) != 1:
            raise SystemExit(f"{path}: rows on different budgets {budgets}; one table per budget list")
        return cls(path.stem, list(budgets[0]), rows)

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


def other_seed(first: int, seeds: list[int]) -> int | None:
    """The recorded seed a second-seed repeat uses: the next one after `first` (cyclic); None with one seed."""
    order = sorted(seeds)
    return order[(order.index(first) + 1) % len(order)] if len(order) > 1 else None


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

    def repeat(self, pair: list[CandidateRecord], budget: int) -> int:
        """Each close candidate's recorded training on its other seed, added to the evidence's spread."""
        steps = 0
        for record in pair:
            first, second = (
                self.seed[record.id],
                other_seed(self.seed[record.id], self.table.seeds(self.file[record.id])),
            )
            if second is None or self.evidence is None or self.evidence.spread is None or record.fitness is None:
                continue
            fitness, se, _ = self.point(record.id, second, budget)
            if fitness is None:
                continue
            pair_fitness = (float(record.fitness), float(fitness))
            repeat = Repeat(record.id, budget, (first, second), pair_fitness, (record.fitness_se or 0.0, se))
            self.evidence.spread.add(repeat)
            steps += budget
        return steps


@dataclass(frozen=True)
class Settings:
    """How the replayed default runs: its keep fraction, flat-curve stop, how many candidates a cut keeps beyond the
    fraction for being within noise of its cut line, where second seeds are spent ("all", "below the last rung",
    "none") and the rungs after the first (fractions of the full budget)."""

    keep: float = DEFAULT_KEEP
    stop_flat: bool = True
    kept_on_noise: int = MAX_KEPT_ON_NOISE
    repeats: str = "all"
    later: tuple[float, ...] = LATER_RUNGS


ABLATIONS = (
    ("no 2nd seed at the last rung", Settings(repeats="below the last rung")),
    ("kept on noise <= 1", Settings(kept_on_noise=1)),
    ("kept on noise 0", Settings(kept_on_noise=0)),
    ("kept on noise 0, no 2nd seed", Settings(kept_on_noise=0, repeats="none")),
    ("no middle rung", Settings(later=(1.0,))),
)
"""`--ablations`: the default with one of its protections (or its middle rung) taken out, to see what each costs."""


@dataclass(frozen=True)
class Outcome:
    """One replayed search: the returned reward, its label and the env steps the search spent."""

    file: str
    label: str
    steps: int
    budgets: list[int]
    trace: list[str]
    """What each rung did, in words (`--trace`)."""
    spent: dict[str, int] = field(default_factory=dict)
    """The steps by where they went (`replay_steps.SPENT`)."""
    reused: int = 0
    """Env steps of the winner's second-seed training at the full budget, which a final retraining on that seed
    reuses (`rewardsmith.search.final.final_plan`)."""
    last_held: int = 0
    """Candidates whose training at the last rung succeeded (a revived one included)."""
    before_last: tuple[str, bool] | None = None
    """At the rung before the last: the leader's label, and whether it was distinguishable (under the floor) from
    every other candidate there, i.e. whether a pick could have been made there."""

    def run_steps(self, final_seeds: int) -> int:
        """The whole run's steps with `final_seeds` final seeds at the search budget: the search's own, plus each
        final seed the search did not already train the winner on."""
        return (
            self.steps
            + max(0, final_seeds - 1) * self.budgets[-1]
            - min(self.reused, (final_seeds - 1) * self.budgets[-1])
        )


def replay(table: Table, search_seed: int, budgets: list[int], rule: Rule, settings: Settings = Settings()) -> Outcome:
    """One search over the pool: the real `successive_halving` over `budgets`, then the real pick under `rule`
    (the default's "lcb" with the between-seed floor and repeats, as `settings` say; Eureka's "mean" without)."""
    evidence = Evidence(SeedSpread(), {}) if rule == "lcb" else None
    trainer = TableTrainer(table, search_seed, evidence)

    def repeat(pair: list[CandidateRecord], budget: int) -> int:
        wanted = settings.repeats == "all" or (settings.repeats == "below the last rung" and budget < budgets[-1])
        return trainer.repeat(pair, budget) if wanted else 0

    rungs = successive_halving(
        trainer.records(),
        trainer.train,
        budgets,
        keep=settings.keep,
        stop_flat=settings.stop_flat,
        evidence=evidence,
        repeat=repeat if rule == "lcb" and settings.repeats != "none" else None,
        kept_on_noise=settings.kept_on_noise,
    )
    latest: dict[str, CandidateRecord] = {}
    for rung in rungs:
        latest.update({r.id: r for r in rung.trained})
    verdict = pick(list(latest.values()), rule=rule, evidence=evidence)
    if verdict.winner is None:
        raise SystemExit(f"{table.task}: nothing trained in search seed {search_seed}")
    file = trainer.file[verdict.winner]
    steps = sum(r.steps + r.repeat_steps for r in rungs)
    lines = trace(trainer, rungs) + [f"    pick: {verdict.describe()}"]
    repeat_of = evidence.spread.repeat_of(verdict.winner, budgets[-1]) if evidence and evidence.spread else None
    before_last = None
    if len(rungs) >= 2 and (order := ranked(rungs[-2].trained, evidence=evidence)):
        clear = all(distinguishable(order[0], r, evidence) for r in order[1:])
        before_last = (table.label(trainer.file[order[0].id]), clear)
    return Outcome(
        file,
        table.label(file),
        steps,
        budgets,
        lines,
        spent(rungs, budgets[-1]),
        budgets[-1] if repeat_of else 0,
        sum(r.status == "trained" for r in rungs[-1].trained),
        before_last,
    )


def trace(trainer: TableTrainer, rungs: list) -> list[str]:
    """Each rung's candidates (reward, label, training seed, fitness ± se) and what happened to them."""
    lines = []
    for rung in rungs:
        lines.append(f"    rung {rung.index} ({rung.timesteps:,}): repeated {rung.repeated or '-'}")
        for r in sorted(rung.trained, key=lambda r: -(r.fitness if r.fitness is not None else -math.inf)):
            file = trainer.file[r.id]
            lines.append(
                f"      {r.id:5} {file[:34]:34} s{trainer.seed[r.id]} {r.fitness:+.4g} ± {r.fitness_se or 0:.2g}"
                f" -> {rung.next_of(r.id)}"
            )
    return lines


def rate(hits: int, n: int) -> str:
    """ "0.85 ± 0.08 (17/20)": a proportion with its binomial standard error."""
    p = hits / n
    return f"{p:.2f} ± {math.sqrt(p * (1 - p) / n):.2f} ({hits}/{n})"


def default_budgets(table: Table, first: float | None, later: tuple[float, ...]) -> tuple[str, list[int]]:
    """The default's name and rungs on `table`: the first rung `first` (None: the task's recorded one), then `later`
    above it, as `rewardsmith.search.rung_evidence.default_fractions` builds them."""
    spec = load_task(table.task)
    fraction = first if first is not None else first_rung(spec).fraction
    full = table.budgets[-1]
    budgets = rung_budgets(full, [fraction, *(f for f in later if f > fraction)], first_rung_minimum(spec))
    if missing := set(budgets) - set(table.budgets):
        raise SystemExit(f"{table.task}: rungs {budgets} need budgets {sorted(missing)} the table lacks")
    return f"default first {fraction:.4g}" + (" (recorded)" if first is None else ""), budgets


def pool_report(
    table: Table,
    search_seeds: int,
    firsts: list[float | None],
    settings: Settings = Settings(),
    traces: int = 0,
    final_seeds: int = 3,
    ablations: bool = False,
) -> tuple[list[str], list[dict]]:
    """The printed lines and goal rows of one pool: Eureka, then the default with each first rung in `firsts`
    (None: the task family's recorded first rung), then (`ablations`) the recorded one under each of `ABLATIONS`."""
    full = table.budgets[-1]
    best = max(table.files, key=lambda f: table.converged(f) if table.converged(f) is not None else -math.inf)
    seeds_used = sorted({r["seed"] for r in table.rows})
    lines = [
        f"{table.task}: {len(table.files)} runnable rewards, recorded budgets {table.budgets}, training seeds "
        f"{seeds_used}; best by the converged ranking: {best} ({table.label(best)})",
        *labels_earned(table),
        *rung_rho(table),
    ]
    eureka = [replay(table, s, [full], "mean") for s in range(search_seeds)]
    eureka_steps = statistics.fmean(o.steps for o in eureka)
    eureka_run = statistics.fmean(o.run_steps(final_seeds) for o in eureka)
    runs = [(*default_budgets(table, first, settings.later), settings) for first in firsts]
    for what, changed in ABLATIONS if ablations else ():
        budgets = default_budgets(table, None, changed.later)[1]
        runs.append((f"ablation: {what}", budgets, replace(changed, keep=settings.keep, stop_flat=settings.stop_flat)))
    strategies: list[tuple[str, list[Outcome]]] = [("eureka", eureka)]
    strategies += [(name, [replay(table, s, b, "lcb", how) for s in range(search_seeds)]) for name, b, how in runs]
    goals = []
    for name, outcomes in strategies:
        hits = sum(o.label == "good" for o in outcomes)
        top = sum(o.file == best for o in outcomes)
        steps = statistics.fmean(o.steps for o in outcomes)
        returned = ", ".join(f"{f.split('_')[0]}×{n}" for f, n in sorted(Counter(o.file for o in outcomes).items()))
        lines.append(
            f"  {name:40} rungs {outcomes[0].budgets}: hit {rate(hits, len(outcomes))}, best {top}/{len(outcomes)}, "
            f"steps {steps:,.0f} = {steps / eureka_steps:.2f} of Eureka's (whole run with {final_seeds} final seeds: "
            f"{statistics.fmean(o.run_steps(final_seeds) for o in outcomes) / eureka_run:.2f}); returned {returned}"
        )
        if name != "eureka":
            fewest = fewest_steps(len(table.files), outcomes[0].budgets, settings.keep) / eureka_steps
            lines.append(f"  {'':40} {where_steps_went(outcomes, eureka_steps, final_seeds)}; fewest {fewest:.3f}")
        goals.append({"task": table.task, "strategy": name, "hit": hits / len(outcomes), "ratio": steps / eureka_steps})
        for s, o in enumerate(outcomes[:traces] if name.startswith("default") else []):
            lines += [f"   search seed {s}: returned {o.file} ({o.label})", *o.trace]
    return lines, goals


def goal_table(goals: list[dict]) -> list[str]:
    """The issue's goal per pool: the default's hit rate >= 0.9, <= 0.25 of Eureka's steps, >= Eureka's hit rate."""
    lines = [f"{'pool':34} {'strategy':40} {'hit':>5} {'>=0.9':>5} {'steps':>6} {'<=0.25':>6} {'>=eureka':>8}"]
    for g in goals:
        eureka = next(e["hit"] for e in goals if e["task"] == g["task"] and e["strategy"] == "eureka")
        ok = (
            "yes" if g["hit"] >= 0.9 else "NO",
            "yes" if g["ratio"] <= 0.25 else "NO",
            "yes" if g["hit"] >= eureka else "NO",
        )
        ok = ok if g["strategy"] != "eureka" else (ok[0], "-", "-")
        lines.append(
            f"{g['task']:34} {g['strategy']:40} {g['hit']:>5.2f} {ok[0]:>5} {g['ratio']:>6.2f} {ok[1]:>6} {ok[2]:>8}"
        )
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tasks", default="", help="comma-separated (default: every table in bench/replay_tables/)")
    parser.add_argument("--search-seeds", type=int, default=20)
    parser.add_argument("--training-seeds", default="", help="use only these recorded training seeds (e.g. 0,1)")
    parser.add_argument("--first", default="", help="first-rung fractions to compare (default: the family's)")
    parser.add_argument("--keep", type=float, default=DEFAULT_KEEP)
    parser.add_argument("--tables", type=Path, default=TABLES)
    parser.add_argument("--final-seeds", type=int, default=3, help="for the whole-run ratio (the specs' default 3)")
    parser.add_argument("--no-stop-flat", action="store_true", help="the default without its flat-curve stop")
    parser.add_argument("--trace", type=int, default=0, help="print the rungs of the first N default searches")
    parser.add_argument("--ablations", action="store_true", help="also the default without each of its protections")
    args = parser.parse_args(argv)
    seeds = {int(x) for x in args.training_seeds.split(",") if x} or None
    tasks = [x for x in args.tasks.split(",") if x] or sorted(p.stem for p in args.tables.glob("*.jsonl"))
    firsts: list[float | None] = [float(x) for x in args.first.split(",") if x] or [None]
    print(
        "A REPLAY of recorded trainings (bench/rung_rho.py tables), not new searches; screen and critic not replayed."
    )
    goals: list[dict] = []
    for task in tasks:
        lines, rows = pool_report(
            Table.load(args.tables / f"{task}.jsonl", seeds),
            args.search_seeds,
            firsts,
            Settings(keep=args.keep, stop_flat=not args.no_stop_flat),
            args.trace,
            args.final_seeds,
            args.ablations,
        )
        print("\n".join(lines), end="\n\n", flush=True)
        goals += rows
    print("\n".join(goal_table(goals)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
