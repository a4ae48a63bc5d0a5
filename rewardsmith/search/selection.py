"""Noise-aware selection: which trained candidate is the best, and whether it is distinguishable from the next.

Every fitness the search compares is a mean over evaluation episodes and carries its standard error
(`CandidateRecord.fitness_se`, `episodes`). The rule ranks candidates by

1. the training budget they reached (`timesteps`): under successive halving the survivors of the top rung
   outrank candidates dropped at a shorter rung, whatever their lucky early number;
2. the lower confidence bound `fitness - Z * se`: a candidate whose mean is high only because of a few lucky
   episodes loses to one whose whole interval sits higher;
3. then the mean, the success rate, and the earlier candidate.

A record without a standard error (an older run folder) counts as exact (se 0), so old folders keep their
old ranking. The `eureka` strategy keeps Eureka's own rule (`rule="mean"`: the highest mean wins).

With `Evidence` (`rewardsmith.search.evidence`), two more things enter:

- the **between-seed floor** (`rewardsmith.search.spread`): a candidate's variance is se² + sd_seed², so two
  candidates are distinguishable only when the lead beats z * sqrt(se_w² + se_r² + 2 sd²); a candidate trained on
  a second seed at its budget is scored by the mean of both seeds, with half the seed variance;
- the **critic's structural warnings**, as a tie-breaker only: when the leader carries one and a candidate at the
  same budget without one is indistinguishable from it under the floor, that candidate leads instead. The weight is
  lexicographic inside the indistinguishable set and zero outside it (a distinguishable lead is never overturned).
  Which warnings weigh was measured on the labelled pools (`rewardsmith.search.evidence.TIE_BREAK_KINDS`): a
  constant total (right on 2 of 2 weak rewards, 0 of 24 good ones warned), and a reward that pays for shuttling
  (round 37: 8 of 18 reward-hacking rewards, no good one); not a constant term's share of the magnitude, which fell
  on 7 of 8 good pendulum rewards (an alive bonus is that task) and on no weak one.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal

from rewardsmith.config import RunConfig
from rewardsmith.run_folder.records import CandidateRecord
from rewardsmith.search.evidence import Evidence
from rewardsmith.search.spread import Floor

Z = 1.0
"""Width of the confidence bound in standard errors (one-sided ~84%)."""

Rule = Literal["lcb", "mean"]


def rule_for(config: RunConfig) -> Rule:
    """The selection rule of a run's strategy: Eureka's highest mean, else the lower confidence bound."""
    return "mean" if config.strategy == "eureka" else "lcb"


def standard_error(record: CandidateRecord) -> float:
    """The standard error of a record's fitness; 0 when the record does not carry one."""
    se = getattr(record, "fitness_se", None)
    return float(se) if se is not None and math.isfinite(se) else 0.0


def estimate(record: CandidateRecord, evidence: Evidence | None = None) -> tuple[float, float]:
    """(mean, variance) of a record's fitness: the evaluation's se² plus the between-seed floor's sd²; with a
    repeat at its budget, the mean of its n seeds and the variance of that mean (`Repeat.estimate`). (-inf, 0)
    without fitness."""
    if record.fitness is None:
        return -math.inf, 0.0
    if evidence is None:
        return record.fitness, standard_error(record) ** 2
    budget = getattr(record, "timesteps", 0)
    sd = evidence.floor(budget).sd
    repeat = evidence.repeat(record.id, budget)
    if repeat is not None:
        return repeat.estimate(sd)
    return record.fitness, standard_error(record) ** 2 + sd**2


def lower_bound(record: CandidateRecord, z: float = Z, evidence: Evidence | None = None) -> float:
    """`mean - z * sqrt(variance)` (`estimate`); -inf for a record without fitness."""
    mean, var = estimate(record, evidence)
    return mean - z * math.sqrt(var)


def rank_key(record: CandidateRecord, rule: Rule = "lcb", evidence: Evidence | None = None) -> tuple:
    """Sort key, highest first: budget reached, then the lower bound (or the mean), mean, success, earlier."""
    lcb = rule == "lcb"
    score = (
        lower_bound(record, evidence=evidence) if lcb else (record.fitness if record.fitness is not None else -math.inf)
    )
    return (
        getattr(record, "timesteps", 0) if lcb else 0,
        score,
        estimate(record, evidence if lcb else None)[0],
        record.success_rate or 0.0,
        -record.iteration,
        -record.index,
    )


def trained(records: list[CandidateRecord], before: int | None = None) -> list[CandidateRecord]:
    """The trained candidates with a fitness, optionally only from iterations before `before`."""
    return [
        r
        for r in records
        if r.status == "trained" and r.fitness is not None and (before is None or r.iteration < before)
    ]


def ranked(
    records: list[CandidateRecord], before: int | None = None, rule: Rule = "lcb", evidence: Evidence | None = None
) -> list[CandidateRecord]:
    """The trained candidates, best first (with `evidence`: the floor, and the critic's tie-breaker)."""
    order = sorted(trained(records, before), key=lambda r: rank_key(r, rule, evidence), reverse=True)
    swap = tie_break(order, evidence) if rule == "lcb" else None
    return [swap, *(r for r in order if r is not swap)] if swap is not None else order


def distinguishable(a: CandidateRecord, b: CandidateRecord, evidence: Evidence | None = None, z: float = Z) -> bool:
    """True when `a`'s mean leads `b`'s by more than `z` standard errors of the difference (floor included)."""
    (ma, va), (mb, vb) = estimate(a, evidence), estimate(b, evidence)
    return ma - mb > z * math.sqrt(va + vb)


def tie_break(order: list[CandidateRecord], evidence: Evidence | None) -> CandidateRecord | None:
    """The candidate that leads instead of `order[0]` under the critic's tie-breaker (module docstring): the best
    one at the same budget without a structural warning and indistinguishable from a warned leader; else None."""
    if evidence is None or not evidence.warnings or not order or order[0].id not in evidence.warnings:
        return None
    leader = order[0]
    return next(
        (
            r
            for r in order[1:]
            if r.timesteps == leader.timesteps
            and r.id not in evidence.warnings
            and not distinguishable(leader, r, evidence)
        ),
        None,
    )


def why_ahead(
    leader: CandidateRecord, other: CandidateRecord, rule: Rule = "lcb", evidence: Evidence | None = None
) -> str:
    """Why `leader` ranks above `other` under `rule` (`ranked`), in words: the first key of `rank_key` that tells
    them apart, or the critic's tie-break. For a "new best" line whose leader is not the highest single number."""
    lead, rival = rank_key(leader, rule, evidence), rank_key(other, rule, evidence)
    if rival > lead:  # `other` leads on the numbers: only the critic's tie-break puts `leader` first
        warning = evidence.warnings.get(other.id, "a structural warning") if evidence else "a structural warning"
        return f"{other.id} is within noise of it and {warning}, so the critic's warning breaks the tie"
    if lead[0] != rival[0]:
        return (
            f"{other.id} stopped at {other.timesteps:,} steps and {leader.id} trained to {leader.timesteps:,}: "
            "a candidate that reached a higher rung ranks first"
        )
    if lead[1] != rival[1] and rule == "mean":
        return f"its mean {lead[1]:.4g} is above {other.id}'s {rival[1]:.4g} (rule: highest mean)"
    if lead[1] != rival[1]:
        bound = (
            f"its lower confidence bound (mean - {Z:g} s.e., seed spread included) {lead[1]:.4g} is above "
            f"{other.id}'s {rival[1]:.4g}"
        )
        if rival[2] > lead[2]:
            return f"{bound}: {other.id}'s mean {rival[2]:.4g} is higher than its {lead[2]:.4g}, but less certain"
        return f"{bound}, and its mean is higher too: {lead[2]:.4g} vs {rival[2]:.4g} (over both seeds, where trained twice)"
    if lead[2] != rival[2]:
        return f"its mean (over both seeds, where trained twice) is higher: {lead[2]:.4g} vs {rival[2]:.4g}"
    return "their numbers tie and it has the higher success rate or came first"


def best_record(
    records: list[CandidateRecord], before: int | None = None, rule: Rule = "lcb", evidence: Evidence | None = None
) -> CandidateRecord | None:
    """The best trained candidate under `rule` (see the module docstring), optionally only from iterations before
    `before`; None if nothing was trained."""
    order = ranked(records, before, rule, evidence)
    return order[0] if order else None


@dataclass(frozen=True)
class Pick:
    """The selection's verdict: the winner, the runner-up and whether their difference exceeds the noise."""

    winner: str | None
    runner_up: str | None
    margin: float | None
    """Winner's mean minus the runner-up's."""
    noise: float | None
    """Z times the standard error of that difference (the between-seed floor included)."""
    distinguishable: bool | None
    """margin > noise; None when there is no runner-up to compare with or neither carries an error."""
    rule: str = "lcb"
    shorter: int = 0
    """Trained candidates left out of the comparison: stopped at a shorter rung than the winner's budget."""
    floor: dict[str, Any] | None = None
    """The between-seed floor at the winner's budget (`rewardsmith.search.spread.Floor.as_dict`)."""
    tie_break: str | None = None
    """Why the critic's tie-breaker changed the leader, if it did (or why the winner's warning was dropped)."""
    confidence: dict[str, Any] | None = None
    """`rewardsmith.search.confidence.Confidence.as_dict`: how sure the search is that the winner is the best."""

    def as_dict(self) -> dict:
        """The verdict for summary.json."""
        return {
            "rule": self.rule,
            "shorter": self.shorter,
            "winner": self.winner,
            "runner_up": self.runner_up,
            "margin": self.margin,
            "noise": self.noise,
            "distinguishable": self.distinguishable,
            "floor": self.floor,
            "tie_break": self.tie_break,
            "confidence": self.confidence,
        }

    def describe(self) -> str:
        """One line for the final table."""
        return self.verdict() + (f"; {self.tie_break}" if self.tie_break else "") + floor_note(self.floor)

    def verdict(self) -> str:
        """The winner against the runner-up."""
        if self.winner is None:
            return "nothing was trained"
        if self.runner_up is None:
            if self.shorter:
                cut = f"{self.shorter} other{'s' if self.shorter > 1 else ''} stopped at a shorter rung"
                return f"{self.winner} (the only candidate trained to its budget; {cut}, so not compared)"
            return f"{self.winner} (the only trained candidate: no runner-up)"
        verdict = {  # at the pick's bar, Z se: the end-of-search signal's 2 se is a stricter one
            True: f"distinguishable at {Z:g} se",
            False: f"NOT distinguishable at {Z:g} se",
            None: "no error bars to compare",
        }[self.distinguishable]
        if self.margin is not None and self.noise is not None and self.margin < 0:  # the lcb rule's tighter bar won
            lower, noise = apart(-self.margin, self.noise)
            return (
                f"{self.winner} over {self.runner_up}: its mean is lower by {lower}, but its lower confidence bound "
                f"is higher (a smaller error bar); noise {noise} ({verdict}; rule {self.rule})"
            )
        margin, noise = apart(self.margin, self.noise)
        return f"{self.winner} over {self.runner_up}: margin {margin} vs noise {noise} ({verdict}; rule {self.rule})"


def floor_note(floor: dict[str, Any] | None) -> str:
    """ "; noise includes seed sd 0.3 (measured: ...)" for the final table; "" without a floor record."""
    if not floor:
        return ""
    record = Floor.from_dict(floor)
    if record.how in ("measured", "prior"):
        return f"; noise includes {record.describe()}"
    return "; seed-to-seed spread not measured (evaluation noise only)"


def apart(a: float | None, b: float | None) -> tuple[str, str]:
    """`a` and `b` to 3 significant digits, or more where 3 would print two different numbers alike (a lead of
    0.004672 over noise of 0.004668 must not read "0.00467 vs 0.00467 (distinguishable)")."""
    digits = 3
    while digits < 12 and a != b and a is not None and b is not None and f"{a:.{digits}g}" == f"{b:.{digits}g}":
        digits += 1
    return f"{a:.{digits}g}", f"{b:.{digits}g}"


def describe_selection(verdict: dict | None) -> str:
    """The line of the final table for summary.json's `selection` (a `Pick.as_dict`); "-" for older runs."""
    if not verdict:
        return "-"
    fields = {k: verdict.get(k) for k in ("winner", "runner_up", "margin", "noise", "distinguishable", "floor")}
    return Pick(
        **fields,
        rule=verdict.get("rule") or "lcb",
        shorter=verdict.get("shorter") or 0,
        tie_break=verdict.get("tie_break"),
    ).describe()


def pick(records: list[CandidateRecord], rule: Rule = "lcb", z: float = Z, evidence: Evidence | None = None) -> Pick:
    """The winner and runner-up among candidates trained at the winner's budget, and whether the winner's lead is
    larger than `z` standard errors of the difference of the two means (with `evidence`: the between-seed floor
    included, two-seed means used, and the critic's tie-breaker applied)."""
    order = ranked(records, rule=rule, evidence=evidence)
    if not order:
        return Pick(None, None, None, None, None, rule)
    winner = order[0]
    budget = getattr(winner, "timesteps", 0)
    floor = evidence.floor(budget).as_dict() if evidence is not None and rule == "lcb" else None
    plain = ranked(records, rule=rule, evidence=Evidence(evidence.spread, {})) if evidence is not None else order
    cleared = evidence.cleared.get(winner.id) if evidence is not None else None
    swapped = (
        (f"no tie-break on {winner.id}: {cleared}" if cleared else None)
        if plain[0].id == winner.id
        else (
            f"{winner.id} leads over {plain[0].id}, which the critic warned about "
            f"({(evidence.warnings if evidence else {}).get(plain[0].id, '')}): indistinguishable under the floor, "
            "so the critic's warning broke the tie"
        )
    )
    peers = [r for r in order[1:] if rule == "mean" or getattr(r, "timesteps", 0) == budget]
    if not peers:
        return Pick(winner.id, None, None, None, None, rule, shorter=len(order) - 1, floor=floor, tie_break=swapped)
    runner = peers[0]
    use = evidence if rule == "lcb" else None
    (mw, vw), (mr, vr) = estimate(winner, use), estimate(runner, use)
    margin = mw - mr
    noise = z * math.sqrt(vw + vr)
    known = (
        getattr(winner, "fitness_se", None) is not None
        or getattr(runner, "fitness_se", None) is not None
        or bool(floor and floor.get("sd"))
    )
    return Pick(
        winner.id,
        runner.id,
        margin,
        noise,
        bool(margin > noise) if known else None,
        rule,
        floor=floor,
        tie_break=swapped,
    )
