"""The between-seed spread of fitness: how much one reward's trained fitness varies from one training seed to
the next at a given budget (the same reward trained twice scored 2.06 and 0.65), the floor under which two
candidates are not told apart.

Where it comes from, best first:

- **measured**: during a run, when the top two candidates of a rung are within noise, halving trains both again
  on a second seed at the same budget (`rewardsmith.search.rungs.rung_repeater`), and with `finalist_seeds` 3 the
  last rung's two finalists on a third while they stay within noise. Each repeat holds n >= 2 trusted fitnesses
  with their evaluation standard errors; the sample variance of the n fitnesses estimates sd² plus the mean se²,
  so the pooled estimate is sd² = the mean over repeats, weighted by n - 1, of (sample variance - mean se²), at
  least 0 (for a pair (a, b): ((a - b)² - se_a² - se_b²) / 2). The repeats are kept in the run folder's
  `seed_spread.json` and read again on resume, so a repeat is never paid twice.
- **prior**: a task spec's `[calibration]` record: its good reward's standard error over seeds, times
  sqrt(seeds), is that reward's between-seed sd at the budget it was measured at (and only there: a
  reward's spread at 1/16 of the budget says little about its spread at the full budget, and the reverse).
- **none**: neither; the floor is 0 and only the evaluation episodes' standard error counts (the old rule).

A measured floor applies to its own budget only; other budgets fall back to the prior. A budget is a rung's (or the
calibration's) nominal step count, and a trained candidate's `timesteps` count what it really trained, which PPO
rounds up to whole rollouts (a 20,000-step rung trains 20,480): `at_budget` matches the two.
"""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rewardsmith.files import read_json, write_json_atomic
from rewardsmith.task import TaskSpec


@dataclass(frozen=True)
class Floor:
    """The between-seed sd used at one budget, and how it was measured."""

    sd: float
    how: str
    """"measured", "prior" or "none"."""
    pairs: int = 0
    """Candidates trained on more than one seed behind a measured floor."""
    budget: int | None = None
    most_seeds: int = 2
    """The most seeds any of those candidates was trained on."""

    def describe(self) -> str:
        """A few words for the final table: "seed sd 0.31 (measured: 3 candidates x 2 seeds)"."""
        if self.how == "measured":
            seeds = "2" if self.most_seeds <= 2 else f"2-{self.most_seeds}"
            return f"seed sd {self.sd:.3g} (measured: {self.pairs} candidate{'s' if self.pairs > 1 else ''} x {seeds} seeds)"
        if self.how == "prior":
            return f"seed sd {self.sd:.3g} (prior: the spec's calibration record)"
        return "seed sd not measured (evaluation noise only)"

    def as_dict(self) -> dict[str, Any]:
        """For summary.json's selection."""
        return {
            "sd": self.sd,
            "how": self.how,
            "pairs": self.pairs,
            "budget": self.budget,
            "most_seeds": self.most_seeds,
        }

    @classmethod
    def from_dict(cls, row: dict[str, Any]) -> Floor:
        """A floor read back from summary.json's selection (one written before `most_seeds` had pairs only)."""
        return cls(
            float(row.get("sd") or 0.0),
            str(row.get("how") or "none"),
            int(row.get("pairs") or 0),
            row.get("budget"),
            int(row.get("most_seeds") or 2),
        )


NO_FLOOR = Floor(0.0, "none")


ROLLOUT_ROUNDING = 1.25
"""A training of `steps` belongs to the nominal budget b when b <= steps <= b x this (PPO's rollouts round up)."""


def at_budget(steps: int, budgets: set[int]) -> int | None:
    """The nominal budget among `budgets` that a training of `steps` env steps ran at: `steps` itself, else the
    largest b with b <= steps <= b x ROLLOUT_ROUNDING; None when none fits."""
    if steps in budgets:
        return steps
    fits = [b for b in budgets if b <= steps <= b * ROLLOUT_ROUNDING]
    return max(fits) if fits else None


def prior_sd(spec: TaskSpec | None) -> float | None:
    """The between-seed sd of the task's good reward from its `[calibration]` record (se x sqrt(seeds)); None
    without a usable record (a stale one measured other training settings)."""
    cal = spec.fresh_calibration if spec is not None else None
    if cal is None or len(cal.good) < 2 or cal.seeds < 2 or not math.isfinite(cal.good[1]):
        return None
    return float(cal.good[1]) * math.sqrt(cal.seeds)


@dataclass(frozen=True)
class Repeat:
    """One candidate trained on two or more seeds at one budget: the trusted fitness, its standard error and the
    evaluation episodes' fitness of each seed, its search seed first."""

    candidate: str
    budget: int
    seeds: tuple[int, ...]
    fitness: tuple[float, ...]
    se: tuple[float, ...]
    episodes: tuple[tuple[float, ...], ...] = ((), ())

    def with_seed(self, seed: int, fitness: float, se: float, episodes: tuple[float, ...] = ()) -> Repeat:
        """This repeat with one more seed's training."""
        return Repeat(
            self.candidate,
            self.budget,
            (*self.seeds, seed),
            (*self.fitness, fitness),
            (*self.se, se),
            (*self.episodes, episodes),
        )

    def estimate(self, sd: float) -> tuple[float, float]:
        """(mean, variance) over the seeds: the mean fitness, and sum(se²)/n² + sd²/n."""
        n = len(self.fitness)
        return sum(self.fitness) / n, sum(e**2 for e in self.se) / n**2 + sd**2 / n

    def as_dict(self) -> dict[str, Any]:
        """The row of seed_spread.json."""
        return {
            "candidate": self.candidate,
            "budget": self.budget,
            "seeds": list(self.seeds),
            "fitness": list(self.fitness),
            "se": list(self.se),
            "episodes": [list(e) for e in self.episodes],
        }

    @classmethod
    def from_dict(cls, row: Any) -> Repeat | None:
        """A row read back; None for anything malformed (the file is the parent's, but old or cut short)."""
        try:
            fitness = tuple(float(v) for v in row["fitness"])
            se = tuple(float(v) for v in row["se"])
            seeds = tuple(int(v) for v in row["seeds"])
            episodes = tuple(tuple(float(x) for x in e) for e in row.get("episodes") or [()] * len(fitness))
            if not (len(fitness) == len(se) == len(seeds) == len(episodes) >= 2):
                return None
            if not all(math.isfinite(v) for v in fitness + se):
                return None
            return cls(str(row["candidate"]), int(row["budget"]), seeds, fitness, se, episodes)
        except (KeyError, TypeError, ValueError):
            return None


@dataclass
class SeedSpread:
    """Every second-seed repeat of a run, and the floor they give per budget (`floor`)."""

    repeats: list[Repeat] = field(default_factory=list)
    prior: float | None = None
    prior_budget: int | None = None
    """The budget the prior was measured at; None: every budget (a prior given by hand)."""
    path: Path | None = None
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    @classmethod
    def load(cls, path: Path, prior: float | None = None, prior_budget: int | None = None) -> SeedSpread:
        """The repeats saved in `path` (none when it is missing or unreadable), with the prior for `prior_budget`."""
        raw = read_json(path) if Path(path).is_file() else None
        rows = raw.get("repeats") if isinstance(raw, dict) else None
        repeats = [r for row in rows or [] if (r := Repeat.from_dict(row)) is not None]
        return cls(repeats, prior, prior_budget, Path(path))

    def add(self, repeat: Repeat) -> None:
        """Record a repeat (replacing an older one of the same candidate and budget) and save the file."""
        with self.lock:
            self.repeats = [r for r in self.repeats if (r.candidate, r.budget) != (repeat.candidate, repeat.budget)]
            self.repeats.append(repeat)
            if self.path is not None:
                write_json_atomic(self.path, {"repeats": [r.as_dict() for r in self.repeats]})

    def repeat_of(self, candidate: str, budget: int) -> Repeat | None:
        """The repeat of `candidate` at `budget` (a nominal budget or a training's step count, `at_budget`), if any."""
        mine = [r for r in self.repeats if r.candidate == candidate]
        nominal = at_budget(budget, {r.budget for r in mine})
        return next((r for r in mine if r.budget == nominal), None)

    def floor(self, budget: int) -> Floor:
        """The between-seed sd at `budget` (a nominal budget or a training's step count, `at_budget`): measured
        from this budget's repeats, else the prior, else none."""
        nominal = at_budget(budget, {r.budget for r in self.repeats})
        pairs = [r for r in self.repeats if r.budget == nominal]
        if pairs:
            most = max(len(r.fitness) for r in pairs)
            return Floor(math.sqrt(pooled_variance(pairs)), "measured", len(pairs), budget, most)
        if self.prior is not None and (self.prior_budget is None or at_budget(budget, {self.prior_budget})):
            return Floor(self.prior, "prior", 0, budget)
        return Floor(0.0, "none", 0, budget)


def pooled_variance(repeats: list[Repeat]) -> float:
    """The between-seed variance from repeated trainings, the evaluation noise taken out (module docstring)."""
    weighted, weights = 0.0, 0
    for r in repeats:
        n = len(r.fitness)
        mean = sum(r.fitness) / n
        sample = sum((f - mean) ** 2 for f in r.fitness) / (n - 1)
        weighted += (n - 1) * (sample - sum(e**2 for e in r.se) / n)
        weights += n - 1
    return max(0.0, weighted / weights) if weights else 0.0
