"""Strategies replayed from recorded trainings: many search seeds per pool at no training cost.

THIS IS A REPLAY, NOT A RUN. `bench/rung_rho.py` trained every runnable reward of a labelled pool on a few seeds
through the rung budgets (each resumed from the previous one's weights), recording the trusted fitness, its standard
error and episode count at each (bench/replay_tables/). Here the REAL `successive_halving` and pick (the default's
lower-bound rule with the between-seed floor, second-seed repeats, lone-survivor revival) run with a table-backed
trainer (`bench/replay_table.py`): each candidate gets its reward's recorded training on one seed, drawn per (search
seed, reward) (`training_seed`); a second-seed repeat uses the reward's next recorded seed. The Eureka-style
strategy trains every candidate at the full budget and picks the highest mean. Not replayed: the designer, the
critic's verdict (every pool reward in a table passed it), and the trajectory screen as it runs (it sums each
reward over the first rung's evaluation episodes of that search's candidates; the tables keep fitness numbers).

`--screen` adds the default with a recorded first-cut screen: each pool reward's verdict (and per-episode returns)
from `bench/screen_calibration.py --rung-rho --min-signal 0` over the OTHER rewards' first-rung policies on two
training seeds plus the random policy (bench/replay_tables/screen/), the same verdict in every search seed; a
`--first` fraction screens with the verdicts recorded at its own first rung (`screen/<task>.<steps>.jsonl`), and
without one is not replayed with a screen (a screen judged at another rung would not be what that run sees); with
`--tie-break` also both, which is what a run does (the first cut rechecks the critic's warnings on those returns).
A first rung the task's calibration found blind is not replayed with a screen: a run has none there (the
calibration-blind gate, `rewardsmith.search.rungs.blind_first_cut`).

`--tie-break` adds the default with the critic's tie-break: each pool reward's real structural warning, recorded by
`bench/critic_warnings.py --record` (the critic's static rules and sandboxed smoke run, read by the product's
`tie_break_warning`; bench/replay_tables/critic/), goes into the replayed search's `Evidence.warnings` keyed by
candidate id, as a run's `load_evidence` puts it there before the halving: the cuts and the pick both see it.

Labels (`--labels`, default both): the hand labels of the pool files, and the converged labels where a pool has a
converged table (`bench/converged_labels.py`: every reward trained to the spec's budget, or near it, on two seeds
the replay table does not use, labelled by a rule fixed before those numbers were seen). Hit rates and the goal
table are printed under each. `--label-subsets K` adds, per strategy, the range of its hit rate when the converged
labels are earned on each K of the table's label seeds instead of all (the picks unchanged): how much of a hit
rate is which seeds happened to label the pool.

Printed per pool: hit rate (a good-labelled reward returned, binomial se), how often the best reward at the table's
full budget is returned, search steps relative to Eureka's (and for a whole run with final seeds), where the
default's steps went (`bench/replay_steps.py`: first rung, later rungs, revival, second seeds below and at the last
rung, the final retraining, and the fewest the rungs allow), each rung's Spearman rho with the full budget's
ranking (averaged over the OTHER seeds), and the goal table. `--ablations` adds the default with each of its
protections taken out (`ABLATIONS`), to see what each costs in steps and in hit rate.

    PYTHONPATH=$PWD .venv/bin/python bench/replay_strategies.py --search-seeds 100 --ablations --tie-break
    PYTHONPATH=$PWD .venv/bin/python bench/replay_strategies.py --first 0.0625,0.125,0.25 --training-seeds 0,1
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path

from rewardsmith.config import DEFAULT_KEEP
from rewardsmith.run_folder.records import CandidateRecord
from rewardsmith.search.calibration import first_rung as calibration_first_rung
from rewardsmith.search.evidence import Evidence
from rewardsmith.search.halving import MAX_KEPT_ON_NOISE, first_rung_minimum, rung_budgets, successive_halving
from rewardsmith.search.rung_evidence import LATER_RUNGS
from rewardsmith.search.rungs import blind_first_cut, default_rungs
from rewardsmith.search.selection import Rule, distinguishable, pick, ranked
from rewardsmith.search.spread import SeedSpread
from rewardsmith.task import load_task

sys.path.insert(0, str(Path(__file__).parent))  # its sibling, also when a test loads this file by path
from converged_labels import gap_scores, subset_labels
from converged_labels import labels as converged_labels
from replay_pool import labels_earned, rung_rho
from replay_steps import fewest_steps, spent, where_steps_went
from replay_table import Table, TableTrainer, critic_warnings, recorded_screens

TABLES = Path(__file__).parent / "replay_tables"


@dataclass(frozen=True)
class Settings:
    """How the replayed default runs: its keep fraction, flat-curve stop, how many candidates a cut keeps beyond the
    fraction for being within noise of its cut line, where second seeds are spent ("all", "below the last rung",
    "none"), whether a clear leader at the last rung is trained on a second seed (`confirm`), the rungs after the first (fractions of the full budget), whether the critic's tie-break warnings
    (the table's `warnings`) go into the search's `Evidence`, as a run's `load_evidence` puts them before its cuts,
    and whether the first cut gets the table's recorded screen verdicts (`screens`), as a run's first cut does."""

    keep: float = DEFAULT_KEEP
    stop_flat: bool = True
    kept_on_noise: int = MAX_KEPT_ON_NOISE
    repeats: str = "all"
    later: tuple[float, ...] = LATER_RUNGS
    tie_break: bool = False
    screen: bool = False
    confirm: bool = True
    finalist_seeds: int = 2


NO_MIDDLE_RUNG = (1.0,)
"""The later rungs of the "no middle rung" candidate: the full budget only."""
ABLATIONS = (
    ("no 2nd seed for a clear winner", Settings(confirm=False)),
    ("no 2nd seed at the last rung", Settings(repeats="below the last rung", confirm=False)),
    ("kept on noise <= 1", Settings(kept_on_noise=1)),
    ("kept on noise 0", Settings(kept_on_noise=0)),
    ("kept on noise 0, no 2nd seed", Settings(kept_on_noise=0, repeats="none")),
    ("no middle rung", Settings(later=NO_MIDDLE_RUNG)),
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
    if evidence is not None and settings.tie_break:  # keyed by candidate id, as load_evidence keys them
        evidence.warnings = {cid: w for cid, f in trainer.file.items() if (w := table.warnings.get(f))}

    def repeat(pair: list[CandidateRecord], budget: int, seeds: int = 2) -> int:
        wanted = settings.repeats == "all" or (settings.repeats == "below the last rung" and budget < budgets[-1])
        return trainer.repeat(pair, budget, seeds) if wanted else 0

    rungs = successive_halving(
        trainer.records(),
        trainer.train,
        budgets,
        keep=settings.keep,
        stop_flat=settings.stop_flat,
        evidence=evidence,
        repeat=repeat if rule == "lcb" and settings.repeats != "none" else None,
        kept_on_noise=settings.kept_on_noise,
        confirm=settings.confirm,
        finalist_seeds=settings.finalist_seeds,
        screen=(lambda ok: {r.id: v for r in ok if (v := table.screens.get(trainer.file[r.id]))})
        if settings.screen
        else None,
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


def default_budgets(table: Table, first: float | None, later: tuple[float, ...]) -> tuple[str, list[int], bool]:
    """The default's name, rungs and whether a run screens its first cut on `table`: the first rung `first` (None:
    the one a run of the task takes, `rewardsmith.search.rungs.default_rungs`: the family's, moved past a rung the
    calibration found blind), then `later` above it; no screen where a run's calibration-blind gate has none
    (`rewardsmith.search.rungs.blind_first_cut`)."""
    spec = load_task(table.task)
    full = table.budgets[-1]
    why = default_rungs(spec, full)[1] if first is None else None
    fraction = first if first is not None else why.fraction
    budgets = rung_budgets(full, [fraction, *(f for f in later if f > fraction)], first_rung_minimum(spec))
    if missing := set(budgets) - set(table.budgets):
        raise SystemExit(f"{table.task}: rungs {budgets} need budgets {sorted(missing)} the table lacks")
    name = f"default first {fraction:.4g}" + (" (recorded)" if first is None else "")
    return name, budgets, blind_first_cut(spec, budgets[0], why) is None


def pool_report(
    table: Table,
    search_seeds: int,
    firsts: list[float | None],
    settings: Settings = Settings(),
    traces: int = 0,
    final_seeds: int = 3,
    ablations: bool = False,
    label_sets: dict[str, dict[str, str]] | None = None,
    tie_break: bool = False,
    gate: bool = True,
    scores: dict[str, float] | None = None,
    subsets: LabelSeeds | None = None,
    finalist_seeds: int = 2,
) -> tuple[list[str], list[dict]]:
    """The printed lines and goal rows of one pool: Eureka, then the default with each first rung in `firsts`
    (None: the task family's recorded first rung), each also with the critic's tie-break (`tie_break`), then
    (`ablations`) the recorded one under each of `ABLATIONS`. Hit rates are counted under every label set of
    `label_sets` ({name: {file: label}}; default: the table's hand labels), one goal row per label set; with
    `scores` ({file: converged gap score}, `gap_scores`), the mean score of each strategy's pick; with `subsets`
    (`LabelSeeds`), each strategy's range of hit rates and scores over the label-seed subsets too; with
    `finalist_seeds` > 2, each default also with that many seeds for its last rung's finalists."""
    full = table.budgets[-1]
    sets = label_sets or {"hand": {f: table.label(f) for f in table.files}}
    best = max(table.files, key=lambda f: table.converged(f) if table.converged(f) is not None else -math.inf)
    seeds_used = sorted({r["seed"] for r in table.rows})
    lines = [
        f"{table.task}: {len(table.files)} runnable rewards, recorded budgets {table.budgets}, training seeds "
        f"{seeds_used}; best at the full budget: {best} ({table.label(best)})",
        *labels_earned(table),
        *rung_rho(table),
        *(
            f"  {name} labels: good {', '.join(f.split('_')[0] for f in table.files if of[f] == 'good') or 'none'}"
            f"; the full budget's best over every recorded seed ({best.split('_')[0]}) is {of[best]} under them"
            for name, of in sets.items()
            if name != "hand"
        ),
    ]
    if tie_break:
        warned = ", ".join(f"{f.split('_')[0]} ({table.label(f)})" for f in table.files if f in table.warnings)
        lines.append(f"  critic tie-break warnings: {warned or 'none'}")
    eureka = [replay(table, s, [full], "mean") for s in range(search_seeds)]
    eureka_steps = statistics.fmean(o.steps for o in eureka)
    eureka_run = statistics.fmean(o.run_steps(final_seeds) for o in eureka)
    runs = []
    # where `screen/<task>.jsonl`'s verdicts were recorded: the family's first rung, which the calibration measures
    screened_first = calibration_first_rung(load_task(table.task), table.budgets[-1])
    for first in firsts:
        name, budgets, screened_in_a_run = default_budgets(table, first, settings.later)
        runs.append((name, budgets, settings, table))
        if tie_break:
            runs.append((f"{name} + tie-break", budgets, replace(settings, tie_break=True), table))
            if ablations:  # what a run does where the gate takes its screen away, less the clear winner's 2nd seed
                without = replace(settings, tie_break=True, confirm=False)
                runs.append((f"{name} + tie-break, no clear-winner seed", budgets, without, table))
        if finalist_seeds > 2:  # the registered third seed for the finalists, as a run would do it
            more = replace(settings, tie_break=tie_break, finalist_seeds=finalist_seeds)
            with_more = f"{name}{' + tie-break' if tie_break else ''} + {finalist_seeds} finalist seeds"
            runs.append((with_more, budgets, more, table))
        # the screen a run with this first rung would see: recorded at that rung, or the default's at the default's
        recorded = budgets[0] in table.screens_at or budgets[0] == screened_first
        verdicts = table.screens_at.get(budgets[0]) or (table.screens if budgets[0] == screened_first else None)
        if verdicts and gate and not screened_in_a_run:
            lines.append(f"  {name}: no screen at its first cut in a run (the calibration-blind gate), so none here")
        elif verdicts:
            screened = replace(table, screens=verdicts)
            runs.append((f"{name} + screen", budgets, replace(settings, screen=True), screened))
            if tie_break:  # what a run does
                both = replace(settings, tie_break=True, screen=True)
                runs.append((f"{name} + tie-break + screen", budgets, both, screened))
                if ablations:
                    without = replace(both, confirm=False)
                    runs.append((f"{name} + t-b + screen, no clear-winner seed", budgets, without, screened))
        elif not recorded and (table.screens or table.screens_at):
            lines.append(f"  {name}: no screen recorded at {budgets[0]:,} steps, so not replayed with one")
    for what, changed in ABLATIONS if ablations else ():
        budgets = default_budgets(table, None, changed.later)[1]
        runs.append(
            (f"ablation: {what}", budgets, replace(changed, keep=settings.keep, stop_flat=settings.stop_flat), table)
        )
    strategies: list[tuple[str, list[Outcome]]] = [("eureka", eureka)]
    strategies += [(name, [replay(t, s, b, "lcb", how) for s in range(search_seeds)]) for name, b, how, t in runs]
    # the recorded default as a run does it (its own first rung, the tie-break where asked, the screen where a run
    # screens and it is recorded): the baseline of the "minus the recorded default's" comparison
    _, recorded_budgets, _ = default_budgets(table, None, settings.later)
    as_run = [
        name
        for name, budgets, how, _ in runs
        if budgets == recorded_budgets and how.tie_break == tie_break and how.confirm and how.later == settings.later
        and how.finalist_seeds == settings.finalist_seeds and not name.startswith("ablation")
    ]  # fmt: skip
    default_outcomes = dict(strategies).get(as_run[-1]) if as_run else None
    goals = []
    for name, outcomes in strategies:
        hits = {lab: sum(of[o.file] == "good" for o in outcomes) for lab, of in sets.items()}
        top = sum(o.file == best for o in outcomes)
        steps = statistics.fmean(o.steps for o in outcomes)
        returned = ", ".join(f"{f.split('_')[0]}×{n}" for f, n in sorted(Counter(o.file for o in outcomes).items()))
        lines.append(
            f"  {name:44} rungs {outcomes[0].budgets}: hit "
            + "; ".join(f"{lab} {rate(n, len(outcomes))}" for lab, n in hits.items())
            + mean_score(outcomes, scores)
            + f", best {top}/{len(outcomes)}, steps {steps:,.0f} = {steps / eureka_steps:.2f} of Eureka's (whole run "
            f"with {final_seeds} final seeds: {statistics.fmean(o.run_steps(final_seeds) for o in outcomes) / eureka_run:.2f}"
            f"); returned {returned}"
        )
        lines += [f"  {'':44} {subset_hits(outcomes, subsets, eureka, default_outcomes)}"] if subsets else []
        if name != "eureka":
            fewest = fewest_steps(len(table.files), outcomes[0].budgets, settings.keep) / eureka_steps
            lines.append(f"  {'':44} {where_steps_went(outcomes, eureka_steps, final_seeds)}; fewest {fewest:.3f}")
        goals += [
            {"task": f"{table.task} [{lab}]", "strategy": name, "hit": n / len(outcomes), "ratio": steps / eureka_steps}
            for lab, n in hits.items()
        ]
        for s, o in enumerate(outcomes[:traces] if name.startswith("default") else []):
            lines += [f"   search seed {s}: returned {o.file} ({o.label})", *o.trace]
    return lines, goals


@dataclass(frozen=True)
class LabelSeeds:
    """The converged labels and gap scores earned on each K-seed subset of a pool's label seeds."""

    labels: dict[tuple[int, ...], dict[str, str]]
    scores: dict[tuple[int, ...], dict[str, float]]

    @classmethod
    def load(cls, path: Path, k: int) -> LabelSeeds:
        """Every K-seed subset of the converged table at `path` (`subset_labels`, `gap_scores`)."""
        labels = subset_labels(path, k)
        return cls(labels, {s: gap_scores(path, s) for s in labels})


def mean_score(outcomes: list[Outcome], scores: dict[str, float] | None) -> str:
    """ ", score 0.87 ± 0.02": the mean converged gap score of a strategy's picks, its se over search seeds ("" with
    no scores)."""
    if not scores:
        return ""
    values = [scores[o.file] for o in outcomes]
    se = statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else 0.0
    return f", score {statistics.fmean(values):.2f} ± {se:.2f}"


def subset_hits(
    outcomes: list[Outcome],
    subsets: LabelSeeds,
    eureka: list[Outcome] | None = None,
    default: list[Outcome] | None = None,
) -> str:
    """One strategy's hit rate and mean gap score under each label-seed subset (the picks unchanged): their ranges,
    and with `eureka` the range of its difference from Eureka's under the same labels (whether a comparison's sign
    survives a change of label seeds); with `default` (the recorded default as a run does it) the range of its gap
    score's difference from that, to three places (a candidate's adoption test reads its lower end). Subsets with no
    good reward are left out of the hit rate (no pick can be a hit there)."""
    k, n = len(next(iter(subsets.labels))), len({seed for s in subsets.labels for seed in s})
    defined = [s for s, of in subsets.labels.items() if "good" in of.values()]
    head = f"labels on every {k} of the {n} label seeds ({len(subsets.labels)} sets"
    undefined = len(subsets.labels) - len(defined)
    head += f", {undefined} with no good reward left out of the hit rate)" if undefined else ")"

    def hit(of: dict[str, str], picks: list[Outcome]) -> float:
        return sum(of[o.file] == "good" for o in picks) / len(picks)

    def score(of: dict[str, float], picks: list[Outcome]) -> float:
        return statistics.fmean(of[o.file] for o in picks)

    def span(values: list[float], signed: bool = False) -> str:
        return f"{min(values):+.2f} to {max(values):+.2f}" if signed else f"{min(values):.2f} to {max(values):.2f}"

    scores = [score(of, outcomes) for of in subsets.scores.values()]
    parts = [f"score {span(scores)}"]
    if defined:
        hits = [hit(subsets.labels[s], outcomes) for s in defined]
        parts.insert(0, f"hit {span(hits)} (mean {statistics.fmean(hits):.2f})")
    if eureka is not None and eureka is not outcomes:
        diff = [a - score(of, eureka) for a, of in zip(scores, subsets.scores.values(), strict=True)]
        parts.append(f"minus Eureka's: score {span(diff, True)}")
        if defined:
            hit_diff = [hit(subsets.labels[s], outcomes) - hit(subsets.labels[s], eureka) for s in defined]
            parts.append(f"hit {span(hit_diff, True)}")
    if default is not None and default is not outcomes:
        diff = [a - score(of, default) for a, of in zip(scores, subsets.scores.values(), strict=True)]
        parts.append(f"minus the recorded default's: score {min(diff):+.3f} to {max(diff):+.3f}")
    return f"{head}: " + ", ".join(parts)


LABEL_SETS = ("hand", "converged", "both")


def label_sets(table: Table, which: str, tables: Path, folder: str = "converged") -> dict[str, dict[str, str]]:
    """{name: {file: label}} for `which` of `LABEL_SETS`: the table's hand labels, and the converged ones
    (`bench/converged_labels.py` on TABLES/<folder>/<task>.jsonl; `--converged` names the folder) where recorded;
    "converged" for a pool without them, or with a reward they lack, is an error. Converged labels with no good
    reward are left out, with a line that says so (a "converged" replay stops): no pick can be a hit, so a hit rate
    of 0 would blame the strategy for what the budget could not show."""
    path = tables / folder / f"{table.task}.jsonl"
    sets = {"hand": {f: table.label(f) for f in table.files}} if which != "converged" else {}
    if which == "hand" or (which == "both" and not path.is_file()):
        return sets
    if not path.is_file():
        raise SystemExit(f"{table.task}: no converged labels ({path} is missing)")
    converged = converged_labels(path)
    if missing := sorted(set(table.files) - set(converged)):
        raise SystemExit(f"{path}: no converged label for {', '.join(missing)}")
    if "good" not in converged.values():
        undefined = f"{path}: no reward is good under the converged labels, so a hit rate against them is undefined"
        if which == "converged":
            raise SystemExit(undefined)
        print(f"{undefined}; replayed against the hand labels only", flush=True)
        return sets
    return {**sets, "converged": converged}


def goal_table(goals: list[dict]) -> list[str]:
    """The issue's goal per pool: the default's hit rate >= 0.9, <= 0.25 of Eureka's steps, >= Eureka's hit rate."""
    lines = [f"{'pool [labels]':46} {'strategy':44} {'hit':>5} {'>=0.9':>5} {'steps':>6} {'<=0.25':>6} {'>=eureka':>8}"]
    for g in goals:
        eureka = next(e["hit"] for e in goals if e["task"] == g["task"] and e["strategy"] == "eureka")
        ok = (
            "yes" if g["hit"] >= 0.9 else "NO",
            "yes" if g["ratio"] <= 0.25 else "NO",
            "yes" if g["hit"] >= eureka else "NO",
        )
        ok = ok if g["strategy"] != "eureka" else (ok[0], "-", "-")
        lines.append(
            f"{g['task']:46} {g['strategy']:44} {g['hit']:>5.2f} {ok[0]:>5} {g['ratio']:>6.2f} {ok[1]:>6} {ok[2]:>8}"
        )
    return lines


def seed_mean_hits(table: Table, of: dict[str, str], search_seeds: int) -> str:
    """Eureka-style picking on the mean of k recorded trainings per reward at the full budget, for k = 1 to the
    fewest seeds any reward has (k seeds drawn per search seed and reward): how often the pick is good under the
    labels `of`. What more seeds per candidate could buy at this budget, and where the budget itself is the limit
    (the pick on every recorded seed is not good)."""
    fewest = min(len(table.seeds(f)) for f in table.files)
    rates = []
    for k in range(1, fewest + 1):
        rng = random.Random(k)
        hits = 0
        for _ in range(search_seeds):
            means = {
                f: statistics.fmean(table.row(f, s)["fitness"][-1] for s in rng.sample(table.seeds(f), k))
                for f in table.files
            }
            hits += of[max(means, key=lambda f: means[f])] == "good"
        rates.append(f"k={k} {hits / search_seeds:.2f}")
    return f"  Eureka-style on the mean of k seeds per reward ({search_seeds} draws): " + ", ".join(rates)


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
    parser.add_argument("--labels", choices=LABEL_SETS, default="both", help="hand, converged (where recorded), both")
    parser.add_argument(
        "--converged",
        default="converged",
        help="the folder under TABLES holding the converged labels' tables",
    )
    parser.add_argument(
        "--label-subsets",
        type=int,
        default=0,
        help="K: also each strategy's hit rate under the converged labels of every K of the label seeds",
    )
    parser.add_argument("--tie-break", action="store_true", help="also the default with the critic's recorded warnings")
    parser.add_argument(
        "--screen", action="store_true", help="also the default with the first cut's recorded screen (TABLES/screen/)"
    )
    parser.add_argument(
        "--no-gate",
        action="store_true",
        help="with --screen: replay the recorded screen at a first rung the calibration-blind gate keeps it off in a run",
    )
    parser.add_argument(
        "--finalist-seeds",
        type=int,
        default=2,
        help="N > 2: also each default with N seeds for its last rung's finalists while they are within noise",
    )
    parser.add_argument(
        "--seed-means",
        action="store_true",
        help="also Eureka-style picking on the mean of k recorded seeds per reward, k = 1 to the fewest recorded",
    )
    args = parser.parse_args(argv)
    seeds = {int(x) for x in args.training_seeds.split(",") if x} or None
    tasks = [x for x in args.tasks.split(",") if x] or sorted(p.stem for p in args.tables.glob("*.jsonl"))
    firsts: list[float | None] = [float(x) for x in args.first.split(",") if x] or [None]
    print(
        "A REPLAY of recorded trainings (bench/rung_rho.py tables), not new searches; the screen only as its recorded "
        "first-cut verdicts (--screen), the critic only as its recorded tie-break warnings (--tie-break)."
    )
    goals: list[dict] = []
    for task in tasks:
        warnings = critic_warnings(args.tables / "critic" / f"{task}.jsonl") if args.tie_break else None
        screens = recorded_screens(args.tables / "screen" / f"{task}.jsonl") if args.screen else None
        table = Table.load(args.tables / f"{task}.jsonl", seeds, warnings, screens)
        converged = args.tables / args.converged / f"{task}.jsonl"
        if args.screen:  # screens recorded at other first rungs, for --first
            for path in (args.tables / "screen").glob(f"{task}.*.jsonl"):
                table.screens_at[int(path.stem.rsplit(".", 1)[1])] = recorded_screens(path)
        sets = label_sets(table, args.labels, args.tables, args.converged)
        lines, rows = pool_report(
            table,
            args.search_seeds,
            firsts,
            Settings(keep=args.keep, stop_flat=not args.no_stop_flat),
            args.trace,
            args.final_seeds,
            args.ablations,
            sets,
            args.tie_break,
            gate=not args.no_gate,
            scores=gap_scores(converged) if args.labels != "hand" and converged.is_file() else None,
            subsets=LabelSeeds.load(converged, args.label_subsets) if args.label_subsets else None,
            finalist_seeds=args.finalist_seeds,
        )
        if args.seed_means:
            lines += [f"{seed_mean_hits(table, of, args.search_seeds)} [{name}]" for name, of in sets.items()]
        print("\n".join(lines), end="\n\n", flush=True)
        goals += rows
    print("\n".join(goal_table(goals)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
