"""Successive halving: spend an iteration's training budget where it matters.

Every designed candidate of an iteration first trains for the first rung's budget; the best `keep` fraction
(at least one, ranked by the noise-aware rule of `rewardsmith.search.selection`) goes on to the next rung,
resumed from its own checkpoint rather than restarted, so a candidate that reaches a rung of T steps has
cost T steps, not the sum of all its rungs. A survivor whose fitness did not rise since its previous rung
by more than its standard error stops there (a flat or falling curve), unless it leads the rung.

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
import os
import shutil
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from rewardsmith.config import ResolvedConfig
from rewardsmith.errors import RewardsmithError
from rewardsmith.files import write_json_atomic
from rewardsmith.run_folder.folder import RunFolder
from rewardsmith.run_folder.names import (
    CHECKPOINT_FILE,
    HALVING_FILE,
    REWARD_FILE,
    RUNG_SCREEN_DIR,
    Event,
    iter_dir_name,
)
from rewardsmith.run_folder.records import WEIGHTS_FILE, CandidateRecord
from rewardsmith.search.live import Progress
from rewardsmith.search.selection import pick, ranked, standard_error
from rewardsmith.search.training import (
    record_training,
    reward_budget,
    screen_archives,
    train_and_evaluate,
    warm_start,
)
from rewardsmith.stages.screen import ScreenReport, screen
from rewardsmith.task import TaskSpec
from rewardsmith.workers.executor import Executor

TrainRung = Callable[[CandidateRecord, int, bool], CandidateRecord]
"""(record, total timesteps to reach, resume from the record's own checkpoint) -> the updated record."""

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


def is_flat(before: CandidateRecord | None, now: CandidateRecord) -> bool:
    """True when `now`'s fitness did not rise above `before`'s by more than its standard error."""
    if before is None or before.fitness is None or now.fitness is None:
        return False
    return now.fitness - before.fitness <= standard_error(now)


@dataclass
class Rung:
    """What one rung did: its budget, who trained, how they scored, who went on and why the others stopped."""

    index: int
    timesteps: int
    trained: list[CandidateRecord] = field(default_factory=list)
    promoted: list[str] = field(default_factory=list)
    stopped: dict[str, str] = field(default_factory=dict)
    """Candidate id -> why it did not go on ("halved", "screened out: ...", "flat curve", "training failed: ...")."""
    screen: dict[str, ScreenReport] = field(default_factory=dict)
    """Candidate id -> the screen's verdict at this cut (the first rung only)."""
    steps: int = 0
    """Env steps this rung spent (resumed candidates count only their new steps)."""

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
                    "next": "promoted" if r.id in self.promoted else self.stopped.get(r.id, "final rung"),
                }
                for r in self.trained
            ],
        }


def screened_order(order: list[CandidateRecord], verdicts: dict[str, ScreenReport]) -> list[CandidateRecord]:
    """`order` with the candidates the screen rejected moved behind the ones it passed (each group keeps its
    order); unchanged when the screen passed nobody, which says more about the archive than about the rewards."""
    passed = [r for r in order if (v := verdicts.get(r.id)) is None or v.passed]
    if not passed:
        return order
    return passed + [r for r in order if r not in passed]


def cut(
    rung: Rung, ok: list[CandidateRecord], keep: float, previous: dict[str, CandidateRecord] | None
) -> list[CandidateRecord]:
    """Who of a rung's trained candidates `ok` goes on, best first: the `keep` fraction by the noise-aware rank (the
    screen's rejects behind, `screened_order`), at least two unless the leader is distinguishable, and, given the
    candidates' records at the `previous` rung, without a survivor whose curve went flat (`is_flat`) unless that
    leaves a close call with one. Why each other one stopped goes into `rung.stopped`."""
    order = screened_order(ranked(ok), rung.screen)
    going = order[: survivors(len(ok), keep)]
    for r in order[len(going) :]:
        verdict = rung.screen.get(r.id)
        rung.stopped[r.id] = "halved" if verdict is None or verdict.passed else f"screened out: {verdict.message}"
    if len(going) == 2 > by_fraction(len(ok), keep) and pick(going).distinguishable:
        rung.stopped[going[1].id] = "behind a distinguishable leader"  # the floor of two is for close calls
        going = going[:1]
    if previous is None:
        return going
    flat = [r for r in going[1:] if is_flat(previous.get(r.id), r)]
    kept = [r for r in going if r not in flat]
    if len(kept) < 2 <= len(going) and not pick([going[0], flat[0]]).distinguishable:
        kept.append(flat.pop(0))  # a close call keeps two, however noisy the runner-up's curve
    for r in flat:
        rung.stopped[r.id] = "flat curve"
    return [r for r in going if r in kept]


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
) -> list[Rung]:
    """Train `records` through the rungs of `budgets`; returns what every rung did. Rungs already reached by a
    candidate (a resumed run: `record.timesteps >= budget`) are not trained again. `screen`, if given, reorders
    the first cut (`screened_order`)."""
    alive = list(records)
    previous: dict[str, CandidateRecord] = {}
    rungs: list[Rung] = []
    for index, budget in enumerate(budgets):
        rung = Rung(index + 1, budget)

        def step(record: CandidateRecord, budget: int = budget, first: bool = index == 0) -> CandidateRecord:
            if record.status == "trained" and record.timesteps >= budget:
                return record  # reached on an earlier, interrupted pass
            return train(record, budget, not first)

        with ThreadPoolExecutor(max_workers=max(1, min(parallel, len(alive))), thread_name_prefix="rung") as pool:
            results = list(pool.map(step, alive))
        for before, after in zip(alive, results):
            start = before.timesteps if index and before.status == "trained" else 0
            if after is not before:
                rung.steps += max(0, after.timesteps - start) if after.status == "trained" else 0
        rung.trained = results
        ok = [r for r in results if r.status == "trained"]
        for r in results:
            if r.status != "trained":
                rung.stopped[r.id] = f"training failed: {r.reason[:120]}"
        if index == len(budgets) - 1 or not ok:
            rungs.append(rung)
            if on_rung:
                on_rung(rung)
            break
        if screen is not None and index == 0:
            rung.screen = screen(ok)
        going = cut(rung, ok, keep, previous if stop_flat else None)
        rung.promoted = [r.id for r in going]
        rungs.append(rung)
        if on_rung:
            on_rung(rung)
        previous = {r.id: r for r in ok}
        alive = going
    return rungs


def rung_trainer(
    folder: RunFolder, config: ResolvedConfig, spec: TaskSpec, executor: Executor, progress: Progress
) -> TrainRung:
    """The `TrainRung` of a run: one sandboxed training job per rung in the candidate's folder, measured by the
    trusted evaluation worker (`rewardsmith.search.training.train_and_evaluate`). A resumed rung starts from the
    candidate's own weights of its previous rung (`checkpoint.safetensors`, kept by the parent) and trains only
    the steps still missing."""

    def train(record: CandidateRecord, timesteps: int, resume: bool) -> CandidateRecord:
        cand = folder.cand_dir(record.iteration, record.index)
        checkpoint = cand / CHECKPOINT_FILE
        resume = resume and checkpoint.is_file() and record.status == "trained" and 0 < record.timesteps < timesteps
        done = record.timesteps if resume else 0
        warm = warm_start(folder, record) if config.warm_start and not resume and record.timesteps == 0 else None
        folder.event(
            Event.TRAINING_STARTED,
            candidate=record.id,
            timesteps=timesteps,
            resumed_from=done or None,
            **({"warm_start_from": record.parent} if warm else {}),
        )
        progress.update(record.id, "training", done=done, total=timesteps)
        result, evaluation = train_and_evaluate(
            spec.source,
            cand / REWARD_FILE,
            cand,
            timesteps=timesteps - done,
            seed=config.seed,
            eval_episodes=rung_episodes(spec.train.eval_episodes, timesteps, config.timesteps),
            executor=executor,
            device=config.device,
            on_progress=lambda d, t: progress.update(record.id, "training", done=done + d, total=timesteps),
            on_eval_progress=lambda d, t: progress.update(record.id, "evaluating", done=d, total=t),
            continue_from=checkpoint if resume else warm,
            timesteps_done=done,
            reward_budget_s=reward_budget(folder.cand_of(record).verified_json(folder.cand_of(record).critic_path)),
            options=config.job_options(),
        )
        record = record_training(folder, record, result, evaluation, timesteps)
        if record.status == "trained" and (cand / WEIGHTS_FILE).is_file():
            tmp = cand / f".{CHECKPOINT_FILE}.{os.getpid()}.tmp"
            shutil.copyfile(cand / WEIGHTS_FILE, tmp)
            os.replace(tmp, checkpoint)
        progress.update(record.id, f"rung {timesteps:,}", fitness=record.fitness, reason=record.reason[:100])
        return record

    return train


def rung_screener(
    folder: RunFolder, spec: TaskSpec, executor: Executor, progress: Progress, iteration: int
) -> ScreenRung:
    """The `ScreenRung` of a run: every candidate's reward replayed in the sandboxed screen worker over the archive
    of all trained candidates so far (their last evaluations: here, the first rung's) and the run's random-action
    episodes, verdicts in `cand_<j>/rung_screen/screen.json`. The archive needs no between-policy spread here
    (`min_signal=0`): early policies barely differ, but each episode's trusted fitness is exact, so a reward that
    orders them against it is wrong on real states; the cut only reorders, and only when someone passed."""

    def screen_all(records: list[CandidateRecord]) -> dict[str, ScreenReport]:
        archives = screen_archives(folder, spec, executor)

        def one(record: CandidateRecord) -> ScreenReport | None:
            cand = folder.cand_dir(record.iteration, record.index)
            progress.update(record.id, "screen")
            try:
                verdict = screen(
                    spec, cand / REWARD_FILE, cand / RUNG_SCREEN_DIR, archives, executor=executor, min_signal=0.0
                )
            except RewardsmithError as e:
                progress.log(f"{record.id}: the first-cut screen could not run, no verdict ({e})")
                return None
            folder.event(
                Event.SCREEN_DONE,
                candidate=record.id,
                iteration=iteration,
                rung=1,
                **verdict.verdict(),
            )
            return verdict

        with ThreadPoolExecutor(
            max_workers=max(1, min(executor.workers, len(records))), thread_name_prefix="screen"
        ) as pool:
            verdicts = list(pool.map(one, records))
        return {r.id: v for r, v in zip(records, verdicts) if v is not None}

    return screen_all


MIN_RUNG_STEPS = 1024
"""Under the default rungs, rungs shorter than this (or than one PPO rollout) are merged into the next. A rung job
pays a fixed cost for its training and evaluation workers; warm workers (`rewardsmith.sandbox.forkserver`) cut
it to about a second (bench/fixed_cost.py), so a short first rung is cheap. Explicit `rungs` are only held to one
PPO rollout."""


def first_rung_minimum(spec: TaskSpec, explicit: bool = False) -> int:
    """The smallest rung: one PPO rollout (n_steps x n_envs), and `MIN_RUNG_STEPS` unless the rungs were given
    explicitly."""
    rollout = int(spec.train.hyperparams.get("n_steps", 2048)) * spec.train.n_envs if spec.train.algo == "PPO" else 1
    return rollout if explicit else max(MIN_RUNG_STEPS, rollout)


def halve_iteration(
    folder: RunFolder,
    config: ResolvedConfig,
    spec: TaskSpec,
    executor: Executor,
    progress: Progress,
    iteration: int,
    records: list[CandidateRecord],
) -> list[Rung]:
    """Run successive halving over an iteration's designed (or, on resume, partly trained) candidates and write
    `iter_<i>/halving.json`; returns the rungs (none, and no file, when no candidate is left to train)."""
    budgets = rung_budgets(
        config.timesteps,
        config.rung_fractions(),
        first_rung_minimum(spec, explicit=config.rungs is not None),
    )
    rows: list[dict] = []
    path = folder.path / iter_dir_name(iteration) / HALVING_FILE

    def record_rung(rung: Rung) -> None:
        rows.append(rung.as_dict())
        write_json_atomic(path, {"budgets": budgets, "keep": config.keep, "stop_flat": config.stop_flat, "rungs": rows})
        folder.event(
            Event.RUNG_DONE,
            iteration=iteration,
            rung=rung.index,
            timesteps=rung.timesteps,
            promoted=rung.promoted,
            stopped=rung.stopped,
            steps=rung.steps,
        )
        progress.log(
            f"iteration {iteration} rung {rung.index} ({rung.timesteps:,} steps): "
            + (f"{', '.join(rung.promoted)} go on" if rung.promoted else "done")
            + (f"; stopped {', '.join(f'{k} ({v})' for k, v in rung.stopped.items())}" if rung.stopped else "")
        )

    todo = [r for r in records if r.status == "designed" or (r.status == "trained" and r.iteration == iteration)]
    if not todo:
        return []  # every candidate was rejected: no rung to run, and none to report as done
    return successive_halving(
        todo,
        rung_trainer(folder, config, spec, executor, progress),
        budgets,
        keep=config.keep,
        stop_flat=config.stop_flat,
        parallel=executor.workers,
        screen=rung_screener(folder, spec, executor, progress, iteration) if config.screen else None,
        on_rung=record_rung,
    )
