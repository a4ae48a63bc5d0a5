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
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

from rewardsmith.config import RunConfig
from rewardsmith.run_folder.records import CandidateRecord

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


def lower_bound(record: CandidateRecord, z: float = Z) -> float:
    """`fitness - z * se`; -inf for a record without fitness."""
    if record.fitness is None:
        return -math.inf
    return record.fitness - z * standard_error(record)


def rank_key(record: CandidateRecord, rule: Rule = "lcb") -> tuple:
    """Sort key, highest first: budget reached, then the lower bound (or the mean), mean, success, earlier."""
    score = lower_bound(record) if rule == "lcb" else (record.fitness if record.fitness is not None else -math.inf)
    return (
        getattr(record, "timesteps", 0) if rule == "lcb" else 0,
        score,
        record.fitness if record.fitness is not None else -math.inf,
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


def ranked(records: list[CandidateRecord], before: int | None = None, rule: Rule = "lcb") -> list[CandidateRecord]:
    """The trained candidates, best first."""
    return sorted(trained(records, before), key=lambda r: rank_key(r, rule), reverse=True)


def best_record(
    records: list[CandidateRecord], before: int | None = None, rule: Rule = "lcb"
) -> CandidateRecord | None:
    """The best trained candidate under `rule` (see the module docstring), optionally only from iterations before
    `before`; None if nothing was trained."""
    order = ranked(records, before, rule)
    return order[0] if order else None


@dataclass(frozen=True)
class Pick:
    """The selection's verdict: the winner, the runner-up and whether their difference exceeds the noise."""

    winner: str | None
    runner_up: str | None
    margin: float | None
    """Winner's mean minus the runner-up's."""
    noise: float | None
    """Z times the standard error of that difference."""
    distinguishable: bool | None
    """margin > noise; None when there is no runner-up to compare with or neither carries an error."""
    rule: str = "lcb"
    shorter: int = 0
    """Trained candidates left out of the comparison: stopped at a shorter rung than the winner's budget."""

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
        }

    def describe(self) -> str:
        """One line for the final table."""
        if self.winner is None:
            return "nothing was trained"
        if self.runner_up is None:
            if self.shorter:
                cut = f"{self.shorter} other{'s' if self.shorter > 1 else ''} stopped at a shorter rung"
                return f"{self.winner} (the only candidate trained to its budget; {cut}, so not compared)"
            return f"{self.winner} (the only trained candidate: no runner-up)"
        verdict = {True: "distinguishable", False: "NOT distinguishable", None: "no error bars to compare"}[
            self.distinguishable
        ]
        if self.margin is not None and self.noise is not None and self.margin < 0:  # the lcb rule's tighter bar won
            lower, noise = apart(-self.margin, self.noise)
            return (
                f"{self.winner} over {self.runner_up}: its mean is lower by {lower}, but its lower confidence bound "
                f"is higher (a smaller error bar); noise {noise} ({verdict}; rule {self.rule})"
            )
        margin, noise = apart(self.margin, self.noise)
        return f"{self.winner} over {self.runner_up}: margin {margin} vs noise {noise} ({verdict}; rule {self.rule})"


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
    fields = {k: verdict.get(k) for k in ("winner", "runner_up", "margin", "noise", "distinguishable")}
    return Pick(**fields, rule=verdict.get("rule") or "lcb", shorter=verdict.get("shorter") or 0).describe()


def pick(records: list[CandidateRecord], rule: Rule = "lcb", z: float = Z) -> Pick:
    """The winner and runner-up among candidates trained at the winner's budget, and whether the winner's lead is
    larger than `z` standard errors of the difference of the two means."""
    order = ranked(records, rule=rule)
    if not order:
        return Pick(None, None, None, None, None, rule)
    winner = order[0]
    peers = [r for r in order[1:] if rule == "mean" or getattr(r, "timesteps", 0) == getattr(winner, "timesteps", 0)]
    if not peers:
        return Pick(winner.id, None, None, None, None, rule, shorter=len(order) - 1)
    runner = peers[0]
    assert winner.fitness is not None and runner.fitness is not None
    margin = winner.fitness - runner.fitness
    se_w, se_r = standard_error(winner), standard_error(runner)
    noise = z * math.sqrt(se_w**2 + se_r**2)
    known = getattr(winner, "fitness_se", None) is not None or getattr(runner, "fitness_se", None) is not None
    return Pick(winner.id, runner.id, margin, noise, bool(margin > noise) if known else None, rule)
