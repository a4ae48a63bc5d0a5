"""Calibration: can a task's search budget tell a good reward from a weak one?

A search can only pick what its budget lets it see. For one task, at each budget of a ladder (the first halving
rung, the spec's search budget, and larger budgets while the search budget does not separate), this trains on
several seeds

- **good**: a reward known to be good (the task's example reward, `envs/examples/<task>.py`, or one the user names);
- **weak**: generated weak references, the same for every task: `alive` (a constant +1 a step: it can only teach
  the policy to keep the episode going) and `effort` (minus the squared action, or -1 for any discrete choice but
  the middle one: it teaches the policy to do nothing); the stronger of those measured at each budget is the weak
  arm. Where surviving IS the task (balancing a pendulum), `alive` is not a weak reward but the task's own:
  calibrate such a task with `effort` alone;

and plays the **random** policy, all scored by the task's trusted evaluation worker on fresh episodes. Each
trained arm's number per seed is its evaluation's mean fitness, so its standard error over seeds holds the
training's own variance (the same reward scored 2.06 and 0.65 on two seeds), not only the episodes'.

A budget is **calibrated** when good beats the stronger of weak and random by at least `margin` standard errors of
the difference (Welch). The report also says whether the whole order good > weak > random holds.

`learning_signal` is the run-time side: at the end of a search it says plainly when no trained candidate is
distinguishable from the random policy, or the top rung's candidates from each other, instead of naming a winner
as if the ranking meant something.
"""

from __future__ import annotations

import hashlib
import math
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import gymnasium as gym
from pydantic import BaseModel, Field

from rewardsmith.errors import RewardsmithError
from rewardsmith.files import read_json, write_json_atomic
from rewardsmith.formatting import cell, se_words
from rewardsmith.reward.wrappers import neutral_action
from rewardsmith.run_folder.records import CandidateRecord, Evaluation
from rewardsmith.search import rung_evidence
from rewardsmith.search.evidence import Evidence
from rewardsmith.search.halving import first_rung_minimum, rung_budgets
from rewardsmith.search.selection import estimate, standard_error
from rewardsmith.search.training import evaluate_policy, fallback_line, train_and_evaluate
from rewardsmith.stats import gap_in_se, mean_se
from rewardsmith.task import Calibration, TaskSpec, make_env, table_span
from rewardsmith.workers.executor import Executor

MARGIN_SE = 2.0
"""How many standard errors of the difference good must lead by for a budget to count as calibrated."""
WEAK_REWARDS: dict[str, str] = {
    "alive": '''"""Weak reference (rewardsmith calibrate): a constant bonus per step, blind to the task."""


def compute_reward(state, action, next_state):
    return 1.0, {"alive": 1.0}
''',
    "effort": '''"""Weak reference (rewardsmith calibrate): minus the squared action, blind to the task."""

import numpy as np


def compute_reward(state, action, next_state):
    effort = -float(np.square(np.asarray(action, dtype=np.float64)).sum())
    return effort, {"effort": effort}
''',
}
DISCRETE_EFFORT = '''"""Weak reference (rewardsmith calibrate): minus 1 for any choice but the neutral one ({neutral}), blind to the
task."""


def compute_reward(state, action, next_state):
    effort = -float(int(action) != {neutral})
    return effort, {{"effort": effort}}
'''
"""`effort` for a discrete action (`neutral_action`: the middle choice), where squaring the choice's number means
nothing."""
WeakKind = Literal["alive", "effort"]


def weak_reward(kind: str, spec: TaskSpec) -> str:
    """The source of weak reference `kind` for `spec`'s env."""
    if kind == "effort":
        env = make_env(spec)
        space = env.action_space
        env.close()
        if isinstance(space, gym.spaces.Discrete):
            return DISCRETE_EFFORT.format(neutral=int(neutral_action(space)))
    return WEAK_REWARDS[kind]


DONE_FILE = "calibration_arm.json"
"""Beside each training of a calibration: its result, so a cut-short calibration resumes training by training."""


class BudgetRow(BaseModel):
    """What one budget measured: per-seed mean fitness of each trained arm, per-episode fitness of random."""

    budget: int
    good: list[float]
    weak: dict[str, list[float]] = Field(default_factory=dict)
    random: list[float] = Field(default_factory=list)
    wall_s: float = 0.0
    backends: list[str] = Field(default_factory=list)
    """The training backends its trainings ran on (`summary.json`'s `backend`); empty in rows from before."""

    @property
    def strongest_weak(self) -> tuple[str, list[float]]:
        """The weak reference with the highest mean at this budget."""
        if not self.weak:
            return "-", []
        return max(self.weak.items(), key=lambda kv: mean_se(kv[1])[0])

    @property
    def good_vs_weak(self) -> float:
        """Good's lead over the strongest weak reference, in standard errors."""
        return gap_in_se(self.good, self.strongest_weak[1]) if self.weak else math.inf

    @property
    def good_vs_random(self) -> float:
        """Good's lead over the random policy, in standard errors."""
        return gap_in_se(self.good, self.random) if self.random else math.inf

    @property
    def weak_vs_random(self) -> float:
        """The strongest weak reference's lead over the random policy, in standard errors."""
        return gap_in_se(self.strongest_weak[1], self.random) if self.weak and self.random else math.nan

    @property
    def margin(self) -> float:
        """Good's smallest lead: over the stronger of the weak reference and the random policy."""
        return min(self.good_vs_weak, self.good_vs_random)

    def calibrated(self, margin: float = MARGIN_SE) -> bool:
        """Good beats both references by at least `margin` standard errors."""
        return self.margin >= margin


class CalibrationReport(BaseModel):
    """A task's calibration: the rows measured (one per budget, smallest first) and what they mean."""

    task: str
    reward: str
    seeds: int
    episodes: int
    search_budget: int
    first_rung: int
    margin_required: float = MARGIN_SE
    inputs: str = ""
    """`fingerprint` of the reward's and the spec's text: a resumed calibration keeps rows measured on these only."""
    reward_sha: str = ""
    """`fingerprint` of the reward alone, for the spec's record (writing the record changes the spec's text)."""
    train_sha: str = ""
    """`TrainDefaults.learning_fingerprint` of the spec's training settings, for the spec's record."""
    backend: str = ""
    """The backend asked for (`--backend`: sb3, mjx or auto); "" for the spec's own. Rows of another are not kept."""
    rows: list[BudgetRow] = Field(default_factory=list)

    def row(self, budget: int) -> BudgetRow | None:
        """The row measured at `budget`, if any."""
        return next((r for r in self.rows if r.budget == budget), None)

    @property
    def smallest_budget(self) -> int | None:
        """The smallest budget measured at which good beats both references by the margin."""
        return min((r.budget for r in self.rows if r.calibrated(self.margin_required)), default=None)

    def spec_record(self) -> Calibration:
        """The `[calibration]` table this report gives the spec."""
        at = self.row(self.search_budget)
        first = self.row(self.first_rung)
        good, weak, rand = (
            (mean_se(at.good), mean_se(at.strongest_weak[1]), mean_se(at.random)) if at else ((0, 0),) * 3
        )
        return Calibration(
            budget=self.search_budget,
            first_rung=self.first_rung,
            seeds=self.seeds,
            episodes=self.episodes,
            good=[round(v, 6) for v in good],
            weak=[round(v, 6) for v in weak],
            random=[round(v, 6) for v in rand],
            margin_se=round(at.margin, 2) if at and math.isfinite(at.margin) else None,
            first_rung_margin_se=round(first.margin, 2) if first and math.isfinite(first.margin) else None,
            calibrated=bool(at and at.calibrated(self.margin_required)),
            weak_references=sorted(at.weak) if at else [],
            smallest_budget=self.smallest_budget,
            wall_s=round(sum(r.wall_s for r in self.rows), 1),
            measured=time.strftime("%Y-%m-%d"),
            reward_sha=self.reward_sha,
            train_sha=self.train_sha,
            backend=("+".join(at.backends) or self.backend) if at and self.backend else None,
        )


def first_rung(spec: TaskSpec, search_budget: int | None = None) -> int:
    """The first-rung budget the calibration measures at this search budget: the task's or its family's first rung
    (`rewardsmith.search.rung_evidence`). A run cuts there unless this record finds it blind
    (`rewardsmith.search.rungs.default_rungs` then moves the cut)."""
    budget = search_budget or spec.train.timesteps
    return rung_budgets(budget, [rung_evidence.first_rung(spec).fraction], first_rung_minimum(spec))[0]


def budget_ladder(spec: TaskSpec, search_budget: int, up_to: float) -> list[int]:
    """Budgets to measure, smallest first: the first rung, the search budget, then doublings up to `up_to` x the
    search budget (measured only while the smaller ones do not separate)."""
    ladder = [first_rung(spec, search_budget), search_budget]
    factor = 2.0
    while factor <= up_to:
        ladder.append(int(search_budget * factor))
        factor *= 2
    return sorted(set(ladder))


def fingerprint(*files: Path) -> str:
    """A short hash of the files' text: a reward or spec edited since a training was measured changes it."""
    digest = hashlib.sha256()
    for path in files:
        digest.update(Path(path).read_bytes())
    return digest.hexdigest()[:16]


def calibrate(
    spec: TaskSpec,
    reward: Path,
    work: Path,
    executor: Executor,
    *,
    seeds: int = 3,
    episodes: int | None = None,
    search_budget: int | None = None,
    up_to: float = 4.0,
    weak: tuple[WeakKind, ...] = ("alive", "effort"),
    margin: float = MARGIN_SE,
    parallel: int = 1,
    backend: str | None = None,
    on_row: Callable[[BudgetRow], None] | None = None,
    on_training: Callable[[str], None] | None = None,
) -> CalibrationReport:
    """Measure good vs weak vs random at each budget of the ladder (see the module docstring); rows already in
    `work/calibration.json` for the same reward, seeds, episodes and backend are kept, and so is each finished
    training of a row cut short (its `DONE_FILE`), so a cut-short calibration resumes.
    Budgets above the search budget are measured only while no smaller budget was calibrated. `backend`: the
    trainings' backend (the job option, as `run --backend`; None: the spec's). Asked for `mjx`, an arm that had to
    train on the CPU backend instead (its reward does not trace, or MJX failed here) stops the calibration: its
    numbers would describe another learner. `on_training` hears of each training as it ends (a budget's row can
    take hours: its line comes only when all its trainings have)."""
    if spec.source is None:
        raise RewardsmithError(f"{spec.name}: the task spec was not read from a file")
    spec_file = spec.source
    if seeds < 2:
        raise RewardsmithError("calibration needs at least 2 seeds: the spread between seeds is what it measures")
    budget = search_budget or spec.train.timesteps
    episodes = episodes or spec.train.eval_episodes
    work.mkdir(parents=True, exist_ok=True)
    report = CalibrationReport(
        task=spec.name,
        reward=str(reward),
        seeds=seeds,
        episodes=episodes,
        search_budget=budget,
        first_rung=first_rung(spec, budget),
        margin_required=margin,
        inputs=fingerprint(reward, spec_file),
        reward_sha=fingerprint(reward),
        train_sha=spec.train.learning_fingerprint(),
        backend=backend or "",
    )
    saved = read_json(work / "calibration.json")
    if isinstance(saved, dict):
        old = CalibrationReport.model_validate(saved)
        same = (report.reward, report.inputs, seeds, episodes, report.backend)
        if (old.reward, old.inputs, old.seeds, old.episodes, old.backend) == same:
            report.rows = [r for r in old.rows if r.random and set(r.weak) == set(weak)]
    sources = {"good": reward}
    for kind in weak:
        path = work / f"weak_{kind}.py"
        path.write_text(weak_reward(kind, spec))
        sources[kind] = path
    inputs = {arm: fingerprint(path, spec_file) for arm, path in sources.items()}  # each arm's, once
    random = report.rows[0].random if report.rows else random_fitness(spec, work / "random", executor, episodes * seeds)
    for steps in budget_ladder(spec, budget, up_to):
        if steps > budget and report.smallest_budget is not None:
            break
        if report.row(steps) is not None:
            continue
        started = time.monotonic()
        jobs = [(arm, seed) for seed in range(seeds) for arm in sources]  # seed-major: a cut leaves whole seeds
        progress = _RowProgress(steps, len(jobs), on_training)

        def one(
            job: tuple[str, int], steps: int = steps, progress: _RowProgress = progress
        ) -> tuple[float, float, str]:
            """(fitness, wall time of a training an earlier process measured, else 0, the backend it trained on)."""
            arm, seed = job
            folder = work / f"t{steps}" / arm / f"seed_{seed}"
            key = {
                "reward": str(sources[arm]),
                "inputs": inputs[arm],
                "steps": steps,
                "seed": seed,
                "episodes": episodes,
            } | ({"backend": backend} if backend else {})
            done = read_json(folder / DONE_FILE)  # a training finished before a cut-short calibration stopped
            if isinstance(done, dict) and done.get("key") == key and isinstance(done.get("fitness_mean"), float):
                wall = done.get("wall_s")
                used = str(done.get("backend") or "")
                progress.ended(arm, seed, done["fitness_mean"], "trained before this resume")
                return done["fitness_mean"], float(wall) if isinstance(wall, (int, float)) else 0.0, used
            folder.mkdir(parents=True, exist_ok=True)
            t0 = time.monotonic()
            result, evaluation = train_and_evaluate(
                spec.source,
                sources[arm],
                folder,
                timesteps=steps,
                seed=seed,
                eval_episodes=episodes,
                executor=executor,
                options={"timeout_s": 600 + steps / 10} | ({"backend": backend} if backend else {}),
            )
            if evaluation is None or evaluation.fitness_mean is None:
                raise RewardsmithError(
                    f"calibration of {spec.name}: {arm} seed {seed} at {steps} steps: {result.error}"
                )
            fallback = result.summary.get("backend_fallback")
            if backend == "mjx" and fallback:
                raise RewardsmithError(
                    f"calibration of {spec.name} on mjx: {arm} seed {seed} at {steps} steps {fallback_line(fallback)}; "
                    "calibrate with --backend sb3, or make the reward trace (docs/mjx.md)"
                )
            fitness, wall = float(evaluation.fitness_mean), round(time.monotonic() - t0, 1)
            used = str(result.summary.get("backend") or "")
            done = {"key": key, "fitness_mean": fitness, "wall_s": wall, "backend": used}
            write_json_atomic(folder / DONE_FILE, done)
            progress.ended(arm, seed, fitness, f"{wall:.0f} s")
            return fitness, 0.0, used

        with ThreadPoolExecutor(max_workers=max(1, parallel)) as pool:
            measured = dict(zip(jobs, pool.map(one, jobs)))
        values = {job: fitness for job, (fitness, _, _) in measured.items()}
        earlier = sum(wall for _, wall, _ in measured.values()) / max(1, parallel)  # trainings of a cut-short process
        row = BudgetRow(
            budget=steps,
            good=[values["good", s] for s in range(seeds)],
            weak={k: [values[k, s] for s in range(seeds)] for k in weak},
            random=random,
            wall_s=round(time.monotonic() - started + earlier, 1),
            backends=sorted({used for _, _, used in measured.values() if used}),
        )
        report.rows = sorted([*report.rows, row], key=lambda r: r.budget)
        write_json_atomic(work / "calibration.json", report.model_dump(mode="json"))
        if on_row:
            on_row(row)
    return report


class _RowProgress:
    """A budget's trainings as each ends, counted (its row's line comes only when all have: hours, on a CPU)."""

    def __init__(self, steps: int, total: int, hear: Callable[[str], None] | None) -> None:
        self.steps, self.total, self.hear = steps, total, hear
        self.count, self.lock = 0, threading.Lock()

    def ended(self, arm: str, seed: int, fitness: float, how: str) -> None:
        with self.lock:  # the row's trainings end on the pool's threads
            self.count += 1
            line = f"{self.steps:,} steps: {arm} seed {seed}: fitness {cell(fitness)} ({how}; {self.count} of {self.total})"
        if self.hear:
            self.hear(line)


def random_fitness(spec: TaskSpec, folder: Path, executor: Executor, episodes: int) -> list[float]:
    """Per-episode trusted fitness of uniform random actions, played by the evaluation worker."""
    assert spec.source is not None
    result, evaluation = evaluate_policy(spec.source, folder, episodes=episodes, executor=executor, random_policy=True)
    if evaluation is None:
        raise RewardsmithError(f"calibration of {spec.name}: the random policy's evaluation failed: {result.error}")
    return [float(f) for f in evaluation.fitness]


def write_spec_calibration(path: Path, record: Calibration) -> None:
    """Replace (or add) the `[calibration]` table at the end of a TOML spec file; the rest of the file is kept."""
    text = Path(path).read_text(encoding="utf-8")
    lines = text.splitlines()
    if span := table_span(lines, "calibration"):
        lines = lines[: span[0]] + lines[span[1] :]
    while lines and not lines[-1].strip():
        lines.pop()
    table = ["", "[calibration]", "# measured by `rewardsmith calibrate` (see envs/README.md); do not edit by hand"]
    for key, value in record.model_dump(mode="json").items():
        if value is not None:
            table.append(f"{key} = {toml_value(value)}")
    Path(path).write_text("\n".join(lines + table) + "\n", encoding="utf-8")


def toml_value(value: object) -> str:
    """A TOML literal for the scalar or list values of a Calibration."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    return repr(value)


@dataclass
class Signal:
    """Whether a search's fitness table carried enough signal to name a winner."""

    verdict: Literal["learned", "nothing_learned", "indistinguishable", "unknown"]
    message: str
    budget: int | None = None
    suggested_budget: int | None = None

    def as_dict(self) -> dict:
        """For summary.json."""
        return {
            "verdict": self.verdict,
            "message": self.message,
            "budget": self.budget,
            "suggested_budget": self.suggested_budget,
        }


def _trained_policies(record: CandidateRecord, budget: int, evidence: Evidence | None) -> list[tuple[float, float]]:
    """(fitness, evaluation se) of each policy trained for `record` at `budget`: one a seed where it was repeated
    (`evidence`), else its own."""
    repeat = evidence.repeat(record.id, budget) if evidence is not None else None
    if repeat is not None:
        return list(zip(repeat.fitness, repeat.se, strict=True))
    return [(record.fitness, standard_error(record))] if record.fitness is not None else []


def learning_signal(
    records: list[CandidateRecord],
    random: Evaluation | None,
    spec: TaskSpec,
    z: float = MARGIN_SE,
    evidence: Evidence | None = None,
) -> Signal:
    """Say plainly when a search's top rung carries no signal: no policy trained at the highest budget reached
    (each seed of a repeated candidate counts) beats the random policy by `z` evaluation standard errors ("nothing
    learned enough to be judged": a fact about the trained policies), or, with two or more there, all of them are
    within `z` standard errors of each other ("indistinguishable": a claim about the rewards, so each candidate's
    variance holds the between-seed floor at that budget from `evidence`, `rewardsmith.search.spread`, and a
    candidate trained on a second seed counts with its two-seed mean, as the selection scores it)."""
    trained = [r for r in records if r.status == "trained" and r.fitness is not None]
    if not trained:
        return Signal("unknown", "no candidate was trained")
    budget = max(getattr(r, "timesteps", 0) or 0 for r in trained)
    top = [r for r in trained if (getattr(r, "timesteps", 0) or 0) == budget]
    cal = spec.fresh_calibration  # a stale record's smallest separating budget was another learner's
    # a longer budget shown to separate: the smallest measured one, else the calibrated search budget (a shorter one
    # that separated, say the first rung, says nothing about this one)
    longer = (
        [b for b in (cal.smallest_budget, cal.budget if cal.calibrated else None) if b and b > budget] if cal else []
    )
    suggestion = min(longer) if longer else None
    if suggestion:
        advice = f"; calibration found that {suggestion:,} steps separate a good reward from a weak one on this task"
    elif cal is not None and cal.separates_at(budget):  # the budget sees: the rewards did not learn the task
        advice = (
            f"; calibration found {cal.budget:,} steps enough for this task's example reward to beat weak ones "
            f"({se_words(cal.margin_se)}), so it is these rewards, not the budget, that did not separate"
            if cal.margin_se is not None
            else ""
        )
    else:
        advice = f"; `{spec.calibrate_command()}` measures the budget that does"
    if random is not None and random.fitness_mean is not None:
        rand_se = float(random.fitness_se or 0.0)
        policies = [p for r in top for p in _trained_policies(r, budget, evidence)]
        learned = [f for f, se in policies if f - random.fitness_mean > z * math.hypot(se, rand_se)]
        if not learned:
            below = all(f < random.fitness_mean for f, _ in policies)
            return Signal(
                "nothing_learned",
                f"no candidate learned enough to be judged at {budget:,} steps: none beats the random policy "
                f"({random.fitness_mean:.4g}) by {z:g} standard errors"
                + (", and every one scores below it" if below else "")
                + advice,
                budget,
                suggestion,
            )
    if len(top) >= 2:
        scored = {r.id: estimate(r, evidence) for r in top}
        best = max(top, key=lambda r: scored[r.id][0])
        mb, vb = scored[best.id]
        if all(mb - scored[r.id][0] <= z * math.sqrt(vb + scored[r.id][1]) for r in top if r is not best):
            floor = evidence.floor(budget) if evidence is not None else None
            noise = (
                f"evaluation noise and {floor.describe()}"
                if floor is not None and floor.how != "none"
                else "evaluation noise only: the seed-to-seed spread was not measured"
            )
            return Signal(
                "indistinguishable",
                f"the {len(top)} candidates trained to {budget:,} steps are within {z:g} standard errors of each "
                f"other ({noise}): the pick among them is not evidence that one reward is better{advice}",
                budget,
                suggestion,
            )
    return Signal("learned", f"the top candidate at {budget:,} steps leads the random policy and its peers", budget)
