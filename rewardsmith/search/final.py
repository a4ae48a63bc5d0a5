"""The end of a run: the best candidate's retraining with the full budget on several seeds in parallel (announced
with its cost before it starts; `final_seeds` 0 skips it; the search's own full-budget training of the winner
counts as its seed, measured again on fresh episodes, and a winner left at a shorter rung resumes from its
checkpoint; the same holds for the winner's second-seed training of a close call when that seed is a final one),
and `summary.json`. The selection rule itself lives in `rewardsmith.search.selection`."""

from __future__ import annotations

import math
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from rewardsmith.config import ResolvedConfig
from rewardsmith.errors import RewardsmithError, RunFolderError
from rewardsmith.files import write_bytes_atomic
from rewardsmith.run_folder.folder import RunFolder
from rewardsmith.run_folder.names import CHECKPOINT_FILE, FINAL_DIR, REWARD_FILE, SEED_DIRS, Event
from rewardsmith.run_folder.records import (
    EVAL_DIR,
    EVALUATION_FILE,
    TASK_FILE,
    WEIGHTS_FILE,
    CandidateRecord,
    Evaluation,
    FinalResult,
    RunSummary,
    read_record,
)
from rewardsmith.search.baselines import load_cached, normalized_score
from rewardsmith.search.calibration import Signal, learning_signal
from rewardsmith.search.confidence import confidence
from rewardsmith.search.evidence import Evidence, load_evidence
from rewardsmith.search.live import Progress
from rewardsmith.search.selection import best_record, pick, rule_for
from rewardsmith.search.spread import Repeat, SeedSpread
from rewardsmith.search.training import (
    RANDOM_POLICY_DIR,
    clear_training_outputs,
    random_policy_archive,
    remeasure,
    train_and_evaluate,
)
from rewardsmith.task import TaskSpec
from rewardsmith.workers.executor import Executor

__all__ = ["clear_training_outputs", "finished_seeds", "retrain_best", "write_summary"]


SEED_KEYS = ("seed", "status", "fitness", "fitness_se", "success_rate", "episodes", "error", "wall_s")


def finished_seeds(folder: RunFolder, candidate: str) -> dict[int, dict[str, Any]]:
    """Seed -> row of the final retraining seeds the parent itself recorded as done (`final_seed_done` events of
    this candidate with status ok, holding the evaluation's numbers). Files in the seed folders are never read
    back: a seed without such an event is trained and evaluated again (issue 10, item 5)."""
    rows: dict[int, dict[str, Any]] = {}
    for e in folder.events():
        if e.get("event") == Event.FINAL_SEED_DONE and e.get("candidate") == candidate and e.get("status") == "ok":
            row = {k: e.get(k) for k in SEED_KEYS}
            if isinstance(row["seed"], int):
                rows[row["seed"]] = row
    return rows


def final_plan(
    folder: RunFolder, config: ResolvedConfig, best: CandidateRecord, spread: SeedSpread | None = None
) -> dict[int, str]:
    """Seed -> how the final retraining gets it: "reuse" (the search trained the winner on this seed with the full
    budget already), "resume" (continue the winner's own rung checkpoint on this seed), "reuse second seed" or
    "resume second seed" (the same for the winner's training on another seed at a rung, its second or, with
    `--finalist-seeds 3`, its third, `rewardsmith.search.spread`, when that seed is one of the final ones: a close
    call at the full budget is not trained again) or
    "train" (from scratch)."""
    plan = {}
    checkpoint = folder.cand_dir(best.iteration, best.index) / CHECKPOINT_FILE
    total = config.final_timesteps
    for seed in [config.seed + k for k in range(config.final_seeds)]:
        same = seed == config.seed and best.timesteps > 0
        repeat = second_seed(folder, best, spread, seed)
        # the search's budget is the final one and the winner reached it (PPO rounds a budget up to whole
        # rollouts: a 20,000-step budget trains 20,480)
        if same and config.timesteps == total and best.timesteps >= total:
            plan[seed] = "reuse"
        elif same and best.timesteps < total and checkpoint.is_file():
            plan[seed] = "resume"
        elif repeat is not None and config.timesteps == total and repeat.budget >= total:
            plan[seed] = "reuse second seed"
        elif repeat is not None and repeat.budget < total:
            plan[seed] = "resume second seed"
        else:
            plan[seed] = "train"
    return plan


def second_seed(folder: RunFolder, best: CandidateRecord, spread: SeedSpread | None, seed: int) -> Repeat | None:
    """The winner's longest repeat with a training on `seed` besides its first (a second or a third seed),
    recorded by the parent in `seed_spread.json`, whose weights are still there; None without one."""
    repeats = [r for r in (spread.repeats if spread else []) if r.candidate == best.id and seed in r.seeds[1:]]
    repeats = [r for r in repeats if repeat_weights(folder, best, r, seed).is_file()]
    return max(repeats, key=lambda r: r.budget, default=None)


def repeat_weights(folder: RunFolder, best: CandidateRecord, repeat: Repeat, seed: int) -> Path:
    """Where the training worker of a repeat's training on `seed` left its policy (`second_seed/<budget>/` or
    `third_seed/<budget>/`, `rewardsmith.search.rungs.rung_repeater`)."""
    extra = SEED_DIRS[repeat.seeds.index(seed, 1) - 1]  # the repeat's second seed, or its third
    return folder.cand_dir(best.iteration, best.index) / extra / str(repeat.budget) / WEIGHTS_FILE


def starting_point(
    folder: RunFolder, best: CandidateRecord, spread: SeedSpread | None, seed: int, how: str
) -> tuple[Path | None, int]:
    """(the weights a final seed starts from, the steps they were trained) for a plan entry (`final_plan`)."""
    cand = folder.cand_dir(best.iteration, best.index)
    if how in ("reuse", "resume"):
        return cand / (WEIGHTS_FILE if how == "reuse" else CHECKPOINT_FILE), best.timesteps
    repeat = second_seed(folder, best, spread, seed) if how.endswith("second seed") else None
    return (repeat_weights(folder, best, repeat, seed), repeat.budget) if repeat is not None else (None, 0)


def announce_final(
    folder: RunFolder,
    config: ResolvedConfig,
    best: CandidateRecord,
    plan: dict[int, str],
    progress: Progress,
    workers: int,
    spread: SeedSpread | None = None,
) -> dict[str, Any]:
    """Say what the final retraining will cost before it starts (env steps, and a time estimate from the winner's
    own measured training speed); returns the announcement, also recorded as an event."""
    total = config.final_timesteps
    remaining = [  # the steps each trained seed still takes: a resumed seed trains only the rest
        total - starting_point(folder, best, spread, seed, how)[1]
        for seed, how in plan.items()
        if not how.startswith("reuse")
    ]
    steps = sum(remaining)
    speed = best.timesteps / best.wall_s if best.wall_s > 0 and best.timesteps else None
    rounds = math.ceil(len(remaining) / max(1, workers))
    estimate = round(rounds * max(remaining, default=0) / speed) if speed and steps else None
    how = ", ".join(f"seed {seed}: {kind}" for seed, kind in plan.items())
    progress.log(
        f"final retraining of {best.id}: {len(plan)} seed(s) x {total:,} steps ({how}) = {steps:,} new env steps"
        + (
            f", about {estimate / 60:.1f} min at {speed:,.0f} steps/s per worker (rough: {best.id}'s own trainings "
            "and evaluations in this run)"
            if estimate is not None
            else ""
        )
        + " (--final-seeds 0 skips it)"
    )
    return {"steps": steps, "estimate_s": estimate, "plan": {str(k): v for k, v in plan.items()}}


def as_given(folder: RunFolder, spec: TaskSpec) -> TaskSpec:
    """The run's spec as the user gave it: its source the file `run` was started with (run.json's task path), not
    the run folder's copy, so advice names a file the user has (and a shipped task by its name); the copy where
    that file is gone."""
    given = (folder.run_info().get("task") or {}).get("path")
    return spec.model_copy(update={"source": Path(given).resolve()}) if given and Path(given).is_file() else spec


def judge_signal(folder: RunFolder, spec: TaskSpec, executor: Executor) -> Signal:
    """Whether the search's top rung carried signal (`learning_signal`): against the run's random-policy episodes
    (played now if the screen did not already) and, between candidates, under the run's between-seed floor
    (`load_evidence`), recorded as a `search_signal` event for summary.json."""
    random_policy_archive(folder, spec.source, executor, max(3, spec.train.eval_episodes))
    random = read_record(folder.path / RANDOM_POLICY_DIR / EVAL_DIR / EVALUATION_FILE, Evaluation)
    signal = learning_signal(folder.candidates(), random, as_given(folder, spec), evidence=load_evidence(folder, spec))
    folder.event(
        Event.SEARCH_SIGNAL,
        **signal.as_dict(),
        random_fitness=random.fitness_mean if random else None,
        random_fitness_se=random.fitness_se if random else None,
    )
    return signal


def search_signal(folder: RunFolder) -> dict[str, Any] | None:
    """The last `search_signal` event's verdict, message and random-policy fitness (None before the final phase)."""
    event = next((e for e in reversed(folder.events()) if e.get("event") == Event.SEARCH_SIGNAL), None)
    return {k: v for k, v in event.items() if k not in ("event", "t")} if event else None


def retrain_best(
    folder: RunFolder, config: ResolvedConfig, executor: Executor, progress: Progress
) -> dict[str, Any] | None:
    """Train the best reward with `final_timesteps` on `final_seeds` seeds in parallel; seeds already done are kept,
    the search's own full-budget training of the winner is reused, a rung checkpoint is resumed. None when
    `final_seeds` is 0 (skipped)."""
    evidence = load_evidence(folder)
    best = best_record(folder.candidates(), rule=rule_for(config), evidence=evidence)
    if best is None:
        raise RewardsmithError(f"{folder.path}: no candidate was trained, so there is nothing to retrain")
    signal = judge_signal(folder, folder.spec(), executor)
    if signal.verdict != "learned":
        progress.log(f"warning: {signal.message}")
    if config.final_seeds == 0:
        progress.log(f"final retraining skipped (--final-seeds 0); the result is {best.id}'s search fitness")
        folder.event(Event.FINAL_SKIPPED, candidate=best.id)
        return None
    plan = final_plan(folder, config, best, evidence.spread)
    cost = announce_final(folder, config, best, plan, progress, executor.workers, evidence.spread)
    final_dir = folder.path / FINAL_DIR
    final_dir.mkdir(exist_ok=True)
    reward = final_dir / REWARD_FILE
    if not reward.is_file():
        code = folder.cand_of(best).verified(folder.cand_of(best).reward_path)  # never a planted reward file
        if code is None:
            raise RunFolderError(f"{best.id}: its {REWARD_FILE} is missing or was not written by rewardsmith")
        write_bytes_atomic(reward, code)
    seeds = list(plan)
    folder.event(Event.FINAL_STARTED, candidate=best.id, seeds=seeds, timesteps=config.final_timesteps, **cost)
    done = finished_seeds(folder, best.id)
    eval_episodes = folder.spec().train.eval_episodes

    def retrain(seed: int) -> dict[str, Any]:
        if seed in done:
            return done[seed]
        label = f"final s{seed}"
        weights, done_steps = starting_point(folder, best, evidence.spread, seed, plan[seed])
        if plan[seed].startswith("reuse") and weights is not None:
            # A full-budget training of the winner from the search, measured again on fresh episodes: the number
            # that selected it is the best of several noisy ones, so reporting it would overstate the result.
            result, evaluation = remeasure(
                folder.path / TASK_FILE,
                weights,
                final_dir / f"seed_{seed}",
                episodes=eval_episodes,
                executor=executor,
                trained_timesteps=done_steps,
                on_progress=lambda d, t: progress.update(label, "evaluating", done=d, total=t),
            )
        else:
            progress.update(label, "training", done=0, total=config.final_timesteps)
            result, evaluation = train_and_evaluate(
                folder.path / TASK_FILE,
                reward,
                final_dir / f"seed_{seed}",
                timesteps=config.final_timesteps - done_steps,
                seed=seed,
                eval_episodes=eval_episodes,
                executor=executor,
                device=config.device,
                on_progress=lambda d, t: progress.update(label, "training", done=d, total=t),
                on_eval_progress=lambda d, t: progress.update(label, "evaluating", done=d, total=t),
                continue_from=weights,
                timesteps_done=done_steps,
                options=config.job_options(),
            )
        row = {
            "seed": seed,
            "status": result.status,
            "fitness": evaluation.fitness_mean if evaluation else None,
            "fitness_se": evaluation.fitness_se if evaluation else None,
            "success_rate": evaluation.success_rate if evaluation else None,
            "episodes": len(evaluation.fitness) if evaluation else 0,
            "error": result.error or None,
            "wall_s": round(result.wall_s, 3),
        }
        folder.event(Event.FINAL_SEED_DONE, candidate=best.id, reused=plan[seed].startswith("reuse"), **row)
        progress.update(label, "trained" if result.ok else "failed", fitness=row["fitness"], reason=result.error[:100])
        return row

    with ThreadPoolExecutor(max_workers=len(seeds), thread_name_prefix="final") as pool:
        rows = list(pool.map(retrain, seeds))
    fitness = [r["fitness"] for r in rows if r["status"] == "ok" and r["fitness"] is not None]
    if not fitness:
        raise RewardsmithError(
            f"the final retraining of {best.id} failed on every seed: "
            + "; ".join(f"seed {r['seed']}: {r['error']}" for r in rows)
            + f" (logs: {final_dir}/seed_*/worker.log)"
        )
    success = [r["success_rate"] for r in rows if r["status"] == "ok" and r["success_rate"] is not None]
    final = {
        "candidate": best.id,
        "reward": "final/reward.py",
        "timesteps": config.final_timesteps,
        "seeds": rows,
        "fitness_mean": float(np.mean(fitness)),
        "fitness_std": float(np.std(fitness)),
        "success_mean": float(np.mean(success)) if success else None,
    }
    folder.event(
        Event.FINAL_DONE, candidate=best.id, fitness_mean=final["fitness_mean"], fitness_std=final["fitness_std"]
    )
    return final


def selection(
    folder: RunFolder, records: list[CandidateRecord], config: ResolvedConfig, evidence: Evidence
) -> dict[str, Any]:
    """summary.json's `selection`: the pick (`rewardsmith.search.selection.pick`) with the between-seed floor, the
    critic's tie-break and the bootstrap confidence that the winner is the best at its budget."""
    verdict = pick(records, rule=rule_for(config), evidence=evidence)
    sure = confidence(folder, records, verdict, evidence if rule_for(config) == "lcb" else None)
    return {**verdict.as_dict(), "confidence": sure.as_dict() if sure else None}


def write_summary(
    folder: RunFolder,
    config: ResolvedConfig,
    spec: TaskSpec,
    status: str,
    *,
    started: float,
    final: dict[str, Any] | None = None,
    error: str | None = None,
) -> dict[str, Any]:
    """Write summary.json (see `rewardsmith.run_folder.folder` for its keys) and return it."""
    records = folder.candidates()
    evidence = load_evidence(folder, spec)
    best = best_record(records, rule=rule_for(config), evidence=evidence)
    repeat = evidence.repeat(best.id, best.timesteps) if best else None
    done = {e.get("iteration") for e in folder.events() if e.get("event") == Event.ITERATION_DONE}
    counts = {s: sum(r.status == s for r in records) for s in ("trained", "rejected", "failed", "designed")}
    baseline = load_cached(spec, config.final_timesteps) if final else None
    summary = RunSummary(
        status=status,
        task=spec.name,
        model=config.model,
        best_candidate=best.id if best else None,
        best_fitness=best.fitness if best else None,
        best_seeds=list(repeat.fitness) if repeat else [],
        best_success_rate=best.success_rate if best else None,
        iterations=len(done),
        candidates=len(records),
        **counts,
        repair_requests=sum(r.repair_rounds for r in records),
        templates={r.id: r.template for r in records if r.template},
        selection=selection(folder, records, config, evidence),
        signal=search_signal(folder),
        **folder.llm_totals(),
        final=FinalResult.model_validate(final) if final else None,
        human_normalized=normalized_score(spec, final["fitness_mean"], baseline) if final else None,
        wall_s=round(time.time() - started, 3),
        error=error,
    )
    folder.write_summary(summary)
    return summary.model_dump()
