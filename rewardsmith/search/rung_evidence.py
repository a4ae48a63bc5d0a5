"""The default strategy's first rung, per task family, with the evidence behind it.

Successive halving cuts on the first rung's ranking, so that rung must be long enough for its ranking to predict
the full budget's. How long that is depends on the task: a fixed 1/16 of the budget carried no signal among the
good rewards of the backward-cheetah pool (Spearman +0.03; issue 23). So the first rung's fraction is chosen per
task family (`rewardsmith.task.task_family`) where it was measured, by `bench/rung_rho.py` on a labelled pool
(every runnable reward trained on each seed as halving trains a survivor, evaluated at each candidate fraction and
at the full budget), as the shortest fraction whose rank correlation with the full budget over all the pool's
rewards is at least `RHO_MIN` on its lower bound (mean minus one standard error over seeds). The choice is made on
one pool and checked on a DIFFERENT pool of the same family, never tuned and reported on the same one.

A family without a measurement keeps `UNMEASURED_FRACTION` and says "no evidence" in the run's output and in
`halving.json`. A spec overrides the family's choice with `[search] first_rung = <fraction>`, and `--rungs` overrides
both.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from rewardsmith.task import LOCOMOTION, TaskSpec, task_family

RHO_MIN = 0.5
"""The rank correlation with the full budget a first rung needs (lower bound, mean - 1 se over seeds)."""
UNMEASURED_FRACTION = 1 / 16
"""The first rung where nothing was measured (the fixed fraction of earlier rounds)."""
HIT_MIN = 0.9
"""The replayed hit rate a first rung needs (issue 23's goal), besides matching Eureka's."""
LATER_RUNGS = (0.25, 1.0)
"""The rungs after the first (those above it)."""


@dataclass(frozen=True)
class Rho:
    """Spearman's rho of a first rung's fitness with the full budget's on one pool: the mean over seeds and its
    standard error (a bootstrap over the pool's rewards)."""

    pool: str
    budget: int
    seeds: int
    rho_all: tuple[float, float]
    """Over all the pool's runnable rewards (good, weak, reward-hacking)."""
    rho_good: tuple[float, float]
    """Among the good ones only."""

    @property
    def holds(self) -> bool:
        """The correlation over all rewards is at least `RHO_MIN` on its lower bound (mean - 1 se)."""
        return self.rho_all[0] - self.rho_all[1] >= RHO_MIN

    def describe(self) -> str:
        """ "rho +0.71 ± 0.05 over all (+0.10 ± 0.20 among good) on pool P, 16,384-step budget, 2 seeds"."""
        (a, sa), (g, sg) = self.rho_all, self.rho_good
        return (
            f"rho {a:+.2f} ± {sa:.2f} over all ({g:+.2f} ± {sg:.2f} among good) on pool {self.pool}, "
            f"{self.budget:,}-step budget, {self.seeds} seed{'s' if self.seeds != 1 else ''}"
        )


@dataclass(frozen=True)
class Replay:
    """The default strategy replayed with a first rung on recorded trainings of one pool (`bench/replay_strategies.py`:
    the real halving and pick, each candidate drawn from its recorded training seeds), against the Eureka-style
    strategy on the same draws."""

    pool: str
    training_seeds: tuple[int, ...]
    search_seeds: int
    hits: int
    """Search seeds in which the default returned a good-labelled reward."""
    eureka_hits: int
    steps: float
    """The default's search steps relative to Eureka's."""

    @property
    def holds(self) -> bool:
        """The default's hit rate is at least `HIT_MIN` and at least Eureka's on the same draws."""
        return self.hits >= max(HIT_MIN * self.search_seeds, self.eureka_hits)

    def describe(self) -> str:
        """ "replayed: 20/20 good (Eureka 20/20) at 0.31 of its steps on pool P, training seeds 0,1"."""
        return (
            f"replayed: {self.hits}/{self.search_seeds} good (Eureka {self.eureka_hits}/{self.search_seeds}) at "
            f"{self.steps:.2f} of its steps on pool {self.pool}, training seed{'s' if len(self.training_seeds) > 1 else ''} "
            f"{','.join(map(str, self.training_seeds))}"
        )


Measurement = Rho | Replay


@dataclass(frozen=True)
class FirstRung:
    """The first rung's fraction of the search budget, and why: what it was chosen on and what held-out data
    checked it (a different pool, or training seeds of the same pool not used to choose)."""

    fraction: float
    how: Literal["measured", "no evidence", "spec", "--rungs"]
    family: str
    chosen_on: tuple[Measurement, ...] = ()
    checked_on: tuple[Measurement, ...] = ()
    task: str | None = None
    """Set when the choice is for one task (`MEASURED_TASKS`), not its whole family."""

    @property
    def holds(self) -> bool | None:
        """Whether every held-out check holds; None when nothing checked it."""
        return all(m.holds for m in self.checked_on) if self.checked_on else None

    def describe(self, first_budget: int | None = None, timesteps: int | None = None) -> str:
        """One line for the run's output; given the rung's steps and the budget, it says when the rung was held
        longer than the fraction (at the shortest rung the task trains: one rollout, and at least 1,024 steps
        unless --rungs says otherwise)."""
        head = f"first rung {self.fraction:.4g} of the budget"
        if first_budget and timesteps and first_budget > self.fraction * timesteps + 1:
            head += (
                f" (held at {first_budget:,} steps, {first_budget / timesteps:.3g} of it: the shortest rung it trains)"
            )
        if self.how == "spec":
            return f"{head} (the spec's [search] first_rung)"
        if self.how == "--rungs":
            return f"{head} (--rungs)"
        if self.how == "no evidence" or not self.chosen_on:
            return f"{head}: no evidence for the {self.family} family (rung rank correlations not measured there)"
        checks = "; ".join(m.describe() for m in self.checked_on)
        check = (
            "; not checked on held-out data"
            if self.holds is None
            else f"; held out: {checks}"
            if self.holds
            else f"; the held-out check FAILED (this rung does not predict the full budget there): {checks}"
        )
        scope = self.task if self.task else f"the {self.family} family"
        return f"{head} for {scope}, chosen on {'; '.join(m.describe() for m in self.chosen_on)}{check}"

    def as_dict(self) -> dict[str, Any]:
        """For halving.json."""
        return {"fraction": self.fraction, "how": self.how, "family": self.family, "why": self.describe()}


MEASURED: dict[str, FirstRung] = {
    # bench/rung_rho.py --task inverted-double-pendulum-balance --seeds 1 --timesteps 16384
    #   --fractions 0.0625,0.125,0.25,1 (15 rewards: 8 good, 4 weak, 3 reward-hacking; se by bootstrap over rewards):
    #   1/16 +0.54 ± 0.24 (lower bound 0.30 < RHO_MIN), 1/8 +0.75 ± 0.17 (0.58: chosen), 1/4 +0.86 ± 0.12.
    #   Among the good ones no fraction below the full budget ranks them: -0.55, -0.14, +0.14.
    # Checked on a different pool: bench/rung_rho.py --task reacher-reach --seeds 1 --timesteps 16384
    #   --fractions 0.125,1 (15 rewards): 1/8 (2,048 steps, one 4-env rollout) -0.07 ± 0.26, among good -0.19 ± 0.40.
    #   The check fails: on reacher a 1/8 rung does not predict 16,384 steps (nor does that budget separate good from
    #   weak well: good -0.163 ± 0.027, weak -0.185 ± 0.052 m). 1/8 is kept for the family as the better supported
    #   choice (1/16 failed on the pendulum, and reacher's own calibration found 1/16 no better than random), and
    #   every run of the family says that the check failed.
    LOCOMOTION: FirstRung(
        1 / 8,
        "measured",
        LOCOMOTION,
        chosen_on=(Rho("inverted-double-pendulum-balance", 16_384, 1, (0.75, 0.17), (-0.14, 0.44)),),
        checked_on=(Rho("reacher-reach", 16_384, 1, (-0.07, 0.26), (-0.19, 0.40)),),
    ),
}
"""Family -> its measured first rung (from bench/rung_rho.py's figures; see the module docstring). Families not
listed (Box2D and classic control, Meta-World, Gymnasium-Robotics arms and hands) have no evidence."""

MEASURED_TASKS: dict[str, FirstRung] = {}
"""Task -> its own measured first rung (its pool's choice), which beats its family's."""


def first_rung(spec: TaskSpec) -> FirstRung:
    """The first rung for a task: the spec's own, else the task's measured one, else its family's, else
    `UNMEASURED_FRACTION`."""
    family = task_family(spec)
    if spec.search.first_rung is not None:
        return FirstRung(spec.search.first_rung, "spec", family)
    return (
        MEASURED_TASKS.get(spec.name) or MEASURED.get(family) or FirstRung(UNMEASURED_FRACTION, "no evidence", family)
    )


def default_fractions(spec: TaskSpec) -> tuple[list[float], FirstRung]:
    """The default strategy's rungs for a task (the first rung, then `LATER_RUNGS` above it), and why."""
    first = first_rung(spec)
    return [first.fraction, *(f for f in LATER_RUNGS if f > first.fraction)], first
