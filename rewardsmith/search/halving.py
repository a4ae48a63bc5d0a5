"""Successive halving: spend an iteration's training budget where it matters.

Every designed candidate of an iteration first trains for the first rung's budget; the best `keep` fraction
(at least one, ranked by the noise-aware rule of `rewardsmith.search.selection`) goes on to the next rung,
resumed from its own checkpoint rather than restarted, so a candidate that reaches a rung of T steps has
cost T steps, not the sum of all its rungs. A survivor whose fitness fell since its previous rung by more than
the noise of that difference stops there (a falling curve), unless it leads the rung. A curve that merely did not
rise by more than its standard error goes on: stopping it (the rule until issue 23) dropped good rewards on noise,
on the reacher pool's tuning seeds the replayed default at a 1/8 first rung returned a good reward 12 times in
20 with it and 18 without (`bench/replay_strategies.py`).

Before the first cut, the trajectory screen (CARD's idea, `rewardsmith.stages.screen`) judges every candidate's
reward on the first rung's archive: the evaluation episodes of all the iteration's policies (and earlier ones),
plus random-action episodes. Early policies rank rewards by how fast they start to look right, and a reward that
is exploited only later (a whirling arm whose random end lands near a target) can lead there; its returns, summed
over everyone's recorded episodes, disagree with the trusted fitness. Candidates the screen rejects go behind the
ones it passes at that cut; they are not deleted, and a screen that passes nobody changes nothing.

This module is the schedule only; how one rung is trained is the `TrainRung` the loop hands in (a sandboxed
worker job that resumes the candidate's checkpoint), so the arithmetic is testable on its own. What each
rung did is written to `iter_<i>/halving.json` by the loop (`Rung.as_dict`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Protocol

from rewardsmith.run_folder.records import CandidateRecord
from rewardsmith.search.evidence import Evidence
from rewardsmith.search.selection import Z, distinguishable, ranked, standard_error
from rewardsmith.stages.screen import ScreenReport
from rewardsmith.task import TaskSpec

TrainRung = Callable[[CandidateRecord, int, bool], CandidateRecord]
"""(record, total timesteps to reach, resume from the record's own checkpoint) -> the updated record."""


class RepeatRung(Protocol):
    """(the close candidates of a rung, its budget, the seeds wanted) -> train each that has fewer than `seeds`
    trainings at that budget on one more seed and add it to the run's `Evidence.spread`
    (`rewardsmith.search.spread`); returns the env steps it spent."""

    def __call__(self, records: list[CandidateRecord], budget: int, seeds: int = 2) -> int: ...


ScreenRung = Callable[[list[CandidateRecord]], dict[str, ScreenReport]]
"""(the first rung's trained candidates) -> {candidate id: the trajectory screen's verdict}; a candidate without
a verdict (the screen could not run) counts as passed."""


def rung_budgets(timesteps: int, fractions: list[float], minimum: int = 1) -> list[int]:
    """The step budget of each rung: `fractions` of `timesteps`, at least `minimum` but never over `timesteps`,
    strictly increasing (rungs that round to the same budget are merged)."""
    budgets: list[int] = []
    for f in fractions:
        b = min(timesteps, max(minimum, round(timesteps * f)))  # --timesteps is the budget, even below `minimum`
        if not budgets or b > budgets[-1]:
            budgets.append(b)
    return budgets


def by_fraction(n: int, keep: float) -> int:
    """ceil(n * keep), robust to float error (25 * 0.28 is 7, not 8)."""
    return math.ceil(n * keep - 1e-9)


def survivors(n: int, keep: float) -> int:
    """How many of `n` candidates go on to the next rung: ceil(n * keep), but at least 2 (where there are 2), so
    the pick at the next rung still compares two policies instead of trusting a shorter rung's order
    (`successive_halving` lets the second go only when the leader is distinguishable from it)."""
    return min(n, max(2, by_fraction(n, keep)))


MIN_RUNG_EPISODES = 5


def rung_episodes(episodes: int, timesteps: int, full: int) -> int:
    """Evaluation episodes for a rung of `timesteps` out of a `full` budget: the spec's `episodes` at the full
    budget, proportionally fewer below it, but at least `MIN_RUNG_EPISODES`. A short rung's cut only ranks (and the
    lower-confidence-bound rule charges the wider error), while a fixed-length env's evaluation of 20 full
    episodes would cost more than a 1/16 rung's training."""
    if timesteps >= full:
        return episodes
    return min(episodes, max(MIN_RUNG_EPISODES, math.ceil(episodes * timesteps / full)))


def is_falling(before: CandidateRecord | None, now: CandidateRecord) -> bool:
    """True when `now`'s fitness fell below `before`'s by more than `Z` standard errors of the difference (both
    evaluations' errors); a change within that noise is not a falling curve."""
    if before is None or before.fitness is None or now.fitness is None:
        return False
    return before.fitness - now.fitness > Z * math.hypot(standard_error(before), standard_error(now))


@dataclass
class Rung:
    """What one rung did: its budget, who trained, how they scored, who went on and why the others stopped."""

    index: int
    timesteps: int
    trained: list[CandidateRecord] = field(default_factory=list)
    promoted: list[str] = field(default_factory=list)
    stopped: dict[str, str] = field(default_factory=dict)
    """Candidate id -> why it did not go on ("halved", "screened out: ...", "falling curve", "training failed: ...")."""
    screen: dict[str, ScreenReport] = field(default_factory=dict)
    """Candidate id -> the screen's verdict at this cut (the first rung only)."""
    steps: int = 0
    """Env steps this rung spent (resumed candidates count only their new steps)."""
    noise_kept: list[str] = field(default_factory=list)
    """Promoted beyond the `keep` fraction: indistinguishable from the cut line under the floor."""
    repeated: list[str] = field(default_factory=list)
    """Trained again on a second seed at this budget (the leader and its closest rival, within noise; at the last
    rung also the leader, `confirm_leader`)."""
    repeat_steps: int = 0
    """Env steps of the second-seed trainings (not in `steps`, which counts the rung's own trainings)."""
    revived: str | None = None
    """At the last rung: the candidate stopped earlier and trained on to compare with a lone survivor."""

    def as_dict(self) -> dict:
        """The rung for halving.json."""
        return {
            "rung": self.index,
            "timesteps": self.timesteps,
            "steps": self.steps,
            "candidates": [
                {
                    "id": r.id,
                    "status": r.status,
                    "fitness": r.fitness,
                    "fitness_se": getattr(r, "fitness_se", None),
                    "timesteps": r.timesteps,
                    "screen": (
                        {"passed": v.passed, "accuracy": v.accuracy, "spearman": v.spearman}
                        if (v := self.screen.get(r.id))
                        else None
                    ),
                    "next": self.next_of(r.id),
                }
                for r in self.trained
            ],
            "repeated_on_a_second_seed": self.repeated,
            "repeat_steps": self.repeat_steps,
            "revived": self.revived,
        }

    def next_of(self, cid: str) -> str:
        """What happened to a candidate after this rung, in words for halving.json."""
        if cid in self.promoted:  # a candidate kept on noise can still stop on its falling curve
            return "promoted (within noise of the cut line)" if cid in self.noise_kept else "promoted"
        if cid == self.revived:
            return "trained on from an earlier rung to compare with a lone survivor"
        return self.stopped.get(cid, "final rung")


def screened_order(order: list[CandidateRecord], verdicts: dict[str, ScreenReport]) -> list[CandidateRecord]:
    """`order` with the candidates the screen rejected moved behind the ones it passed (each group keeps its
    order); unchanged when the screen passed nobody, which says more about the archive than about the rewards."""
    passed = [r for r in order if (v := verdicts.get(r.id)) is None or v.passed]
    if not passed:
        return order
    return passed + [r for r in order if r not in passed]


def stop_reason(rung: Rung, order: list[CandidateRecord], record: CandidateRecord, otherwise: str) -> str:
    """Why `record` stops at this cut: the screen's verdict when the screen rejected it and passed someone (then it
    reordered the cut, `screened_order`), else `otherwise`; a screen that passed nobody changed nothing, and says so."""
    verdict = rung.screen.get(record.id)
    if verdict is None or verdict.passed:
        return otherwise
    if any((v := rung.screen.get(r.id)) is None or v.passed for r in order):
        return f"screened out: {verdict.message}"
    return f"{otherwise} (the screen rejected every candidate, so it reordered nothing)"


MAX_KEPT_ON_NOISE = 2
"""At most this many candidates beyond the `keep` fraction go on because they are indistinguishable from the cut
line (the last one kept by the fraction); each costs one more training of the next rung. What they are worth was
replayed (`bench/replay_strategies.py --ablations`, 100 search seeds): nothing on the pendulum pool, where every good
reward beats every other at the full budget, while a cap of 1 or 0 saved 0.07 or 0.13 of Eureka's steps there; on
the held-out reacher pool the same caps cut the good rewards returned from 44/100 to 39 and 33."""
MAX_REPEATS = 2
"""Second-seed trainings per rung: the leader and its closest rival, when they are within noise."""


def close_pair(ok: list[CandidateRecord], evidence: Evidence | None) -> list[CandidateRecord]:
    """The leader and its closest rival among a rung's trained candidates when they are not distinguishable under
    the floor and not both trained on a second seed at this budget already; else []."""
    order = ranked(ok, evidence=evidence)
    if len(order) < 2 or distinguishable(order[0], order[1], evidence):
        return []
    pair = order[:MAX_REPEATS]
    spread = evidence.spread if evidence is not None else None
    if spread is not None and all(spread.repeat_of(r.id, r.timesteps) for r in pair):
        return []
    return pair


MAX_CONFIRMATIONS = 2
"""Second-seed trainings at the last rung for a leader trained on one seed: the leader, and a new leader that the
first confirmation put in front (`confirm_leader`)."""


def unconfirmed_leader(ok: list[CandidateRecord], evidence: Evidence | None) -> CandidateRecord | None:
    """The leader of a rung's trained candidates when it has no second-seed training at its budget; else None."""
    order = ranked(ok, evidence=evidence)
    spread = evidence.spread if evidence is not None else None
    if not order or spread is None or spread.repeat_of(order[0].id, order[0].timesteps):
        return None
    return order[0]


def confirm_leader(rung: Rung, ok: list[CandidateRecord], repeat: RepeatRung, evidence: Evidence | None) -> None:
    """At the last rung: train the leader on a second seed when it has none, so no reward is returned on one
    training, however clear its lead (one reward scored 0.92 on its search seed and 0.77, 0.56 on two others); again
    for a new leader the confirmation put in front, at most `MAX_CONFIRMATIONS` times. A failed repeat stops it."""
    for _ in range(MAX_CONFIRMATIONS):
        leader = unconfirmed_leader(ok, evidence)
        spent = repeat([leader], rung.timesteps) if leader is not None else 0
        if leader is None or not spent:
            return
        rung.repeat_steps += spent
        rung.repeated.append(leader.id)


def second_seeds(
    rung: Rung,
    ok: list[CandidateRecord],
    repeat: RepeatRung,
    evidence: Evidence | None,
    confirm: bool,
    finalists: int = 2,
) -> None:
    """A rung's second-seed trainings: the leader first when `confirm` (the last rung, `confirm_leader`), then the
    leader and its closest rival when they are within noise (`close_pair`, on the updated means); with `finalists`
    > 2 (the last rung), then one more seed each for those two if they are still within noise
    (`finalists_on_more_seeds`)."""
    if confirm:
        confirm_leader(rung, ok, repeat, evidence)
    if pair := close_pair(ok, evidence):
        rung.repeat_steps += repeat(pair, rung.timesteps)
        rung.repeated += [r.id for r in pair if r.id not in rung.repeated]
    if finalists > 2:
        finalists_on_more_seeds(rung, ok, repeat, evidence, finalists)


def finalists_on_more_seeds(
    rung: Rung, ok: list[CandidateRecord], repeat: RepeatRung, evidence: Evidence | None, seeds: int
) -> None:
    """At the last rung, after `second_seeds`: while the leader and its closest rival are still not
    distinguishable, each of the two with fewer than `seeds` trainings at this budget is trained on one more seed,
    once (the finalists' third seed: bench/replay_tables/README.md, "A third seed for the finalists")."""
    order = ranked(ok, evidence=evidence)
    if len(order) < 2 or distinguishable(order[0], order[1], evidence):
        return
    rung.repeat_steps += repeat(order[:2], rung.timesteps, seeds=seeds)
    rung.repeated += [r.id for r in order[:2] if r.id not in rung.repeated]


def cut(
    rung: Rung,
    ok: list[CandidateRecord],
    keep: float,
    previous: dict[str, CandidateRecord] | None,
    evidence: Evidence | None = None,
    last: bool = False,
    kept_on_noise: int = MAX_KEPT_ON_NOISE,
) -> list[CandidateRecord]:
    """Who of a rung's trained candidates `ok` goes on, best first: the `keep` fraction by the noise-aware rank (the
    screen's rejects behind, `screened_order`), plus up to `kept_on_noise` the screen passed that are
    indistinguishable from the cut line under the floor; at least two unless the leader is distinguishable and the
    next rung is not the `last` (the last rung always holds two where two are left); given the candidates' records
    at the `previous` rung, without a survivor whose curve fell (`is_falling`) unless that leaves a close call,
    or the last rung, with one. Why each other one stopped goes into `rung.stopped`."""
    order = screened_order(ranked(ok, evidence=evidence), rung.screen)
    going = order[: survivors(len(ok), keep)]
    passed = [r for r in order[len(going) :] if (v := rung.screen.get(r.id)) is None or v.passed]
    extra = [r for r in passed if not distinguishable(going[-1], r, evidence)][:kept_on_noise] if going else []
    rung.noise_kept = [r.id for r in extra]
    going += extra
    for r in (r for r in order if r not in going):
        rung.stopped[r.id] = stop_reason(rung, order, r, "halved")
    if len(going) == 2 > by_fraction(len(ok), keep) and not last and distinguishable(going[0], going[1], evidence):
        # the floor of two is for close calls; a runner-up the screen rejected stops for that reason first
        rung.stopped[going[1].id] = stop_reason(rung, order, going[1], "behind a distinguishable leader")
        going = going[:1]
    if previous is None:
        return going
    falling = [r for r in going[1:] if is_falling(previous.get(r.id), r)]
    kept = [r for r in going if r not in falling]
    if len(kept) < 2 <= len(going) and (last or not distinguishable(going[0], falling[0], evidence)):
        kept.append(falling.pop(0))  # a close call (or the last rung) keeps two, however noisy the runner-up's curve
    for r in falling:
        rung.stopped[r.id] = "falling curve"
    return [r for r in going if r in kept]


def train_all(
    records: list[CandidateRecord], step: Callable[[CandidateRecord], CandidateRecord], parallel: int
) -> list[CandidateRecord]:
    """`step` over `records`, `parallel` at a time, in order."""
    with ThreadPoolExecutor(max_workers=max(1, min(parallel, len(records))), thread_name_prefix="rung") as pool:
        return list(pool.map(step, records))


def successive_halving(
    records: list[CandidateRecord],
    train: TrainRung,
    budgets: list[int],
    *,
    keep: float = 0.5,
    stop_flat: bool = True,
    parallel: int = 1,
    screen: ScreenRung | None = None,
    on_rung: Callable[[Rung], None] | None = None,
    evidence: Evidence | None = None,
    repeat: RepeatRung | None = None,
    kept_on_noise: int = MAX_KEPT_ON_NOISE,
    confirm: bool = True,
    finalist_seeds: int = 2,
) -> list[Rung]:
    """Train `records` through the rungs of `budgets`; returns what every rung did. Rungs already reached by a
    candidate (a resumed run: `record.timesteps >= budget`) are not trained again. `screen`, if given, reorders
    the first cut (`screened_order`). `repeat`, if given, trains a rung's leader and closest rival on a second seed
    when they are within noise (`close_pair`), before the cut, and at the last rung first the leader, however clear
    its lead (`confirm_leader`; not with `confirm=False`). A candidate left alone at the last rung is compared
    with the best one stopped earlier, trained on to the same budget from its checkpoint (`revive`). At most
    `kept_on_noise` candidates per cut go on beyond the `keep` fraction for being within noise of its cut line.
    `finalist_seeds` > 2: the last rung's two finalists, still within noise, get one more seed each
    (`finalists_on_more_seeds`)."""
    alive = list(records)
    previous: dict[str, CandidateRecord] = {}
    stopped: list[CandidateRecord] = []
    rungs: list[Rung] = []
    for index, budget in enumerate(budgets):
        rung = Rung(index + 1, budget)
        last = index == len(budgets) - 1

        def step(record: CandidateRecord, budget: int = budget, first: bool = index == 0) -> CandidateRecord:
            if record.status == "trained" and record.timesteps >= budget:
                return record  # reached on an earlier, interrupted pass
            return train(record, budget, not first)

        results = train_all(alive, step, parallel)
        for before, after in zip(alive, results):
            start = before.timesteps if index and before.status == "trained" else 0
            if after is not before:
                rung.steps += max(0, after.timesteps - start) if after.status == "trained" else 0
        rung.trained = results
        ok = [r for r in results if r.status == "trained"]
        for r in results:
            if r.status != "trained":
                rung.stopped[r.id] = f"training failed: {r.reason[:120]}"
        if last and len(ok) == 1 and index:
            ok += revive(rung, stopped, step, evidence)
        if repeat is not None:
            second_seeds(rung, ok, repeat, evidence, confirm=last and confirm, finalists=finalist_seeds if last else 2)
        if last or not ok:
            rungs.append(rung)
            if on_rung:
                on_rung(rung)
            break
        if screen is not None and index == 0:
            rung.screen = screen(ok)
            if evidence is not None:
                # a sparse reward the critic saw as constant, seen firing
                evidence.recheck({cid: verdict.details for cid, verdict in rung.screen.items()})
        going = cut(rung, ok, keep, previous if stop_flat else None, evidence, index == len(budgets) - 2, kept_on_noise)
        rung.promoted = [r.id for r in going]
        rungs.append(rung)
        if on_rung:
            on_rung(rung)
        previous = {r.id: r for r in ok}
        stopped = [r for r in ok if r not in going and not rung.stopped.get(r.id, "").startswith("screened")] + stopped
        alive = going
    return rungs


def revive(
    rung: Rung,
    stopped: list[CandidateRecord],
    step: Callable[[CandidateRecord], CandidateRecord],
    evidence: Evidence | None,
) -> list[CandidateRecord]:
    """The best candidate stopped at the latest earlier rung (not screened out, not failed), trained on from its
    checkpoint to the last rung's budget, so the lone survivor there is compared at equal steps; [] when none."""
    if not stopped:
        return []
    latest = max(r.timesteps for r in stopped)
    best = ranked([r for r in stopped if r.timesteps == latest], evidence=evidence)
    if not best:
        return []
    before = best[0]
    after = step(before)
    rung.revived = before.id
    rung.trained.append(after)
    if after.status != "trained":
        rung.stopped[after.id] = f"training failed: {after.reason[:120]}"
        return []
    rung.steps += max(0, after.timesteps - before.timesteps)
    return [after]


MIN_RUNG_STEPS = 1024
"""Under the default rungs, rungs shorter than this (or than one PPO rollout) are merged into the next. A rung job
pays a fixed cost for its training and evaluation workers; warm workers (`rewardsmith.sandbox.forkserver`) cut
it to about a second (bench/fixed_cost.py), so a short first rung is cheap. Explicit `rungs` are only held to one
PPO rollout."""


def first_rung_minimum(spec: TaskSpec, explicit: bool = False) -> int:
    """The smallest rung: one PPO rollout (n_steps x n_envs), and `MIN_RUNG_STEPS` unless the rungs were given
    explicitly."""
    rollout = spec.train.ppo_rollout() or 1
    return rollout if explicit else max(MIN_RUNG_STEPS, rollout)
