"""Selection and the end of a run: the best candidate (greedy elitism by trusted fitness), its retraining with
the full budget on several seeds in parallel, and `summary.json`."""

from __future__ import annotations

import os
import shutil
import time
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import numpy as np

from rewardsmith.config import RunConfig
from rewardsmith.errors import RewardsmithError
from rewardsmith.run_folder.folder import RunFolder
from rewardsmith.run_folder.records import EPISODES_FILE, METRICS_FILE, SUMMARY_FILE, TASK_FILE, CandidateRecord
from rewardsmith.search.baselines import load_cached, normalized_score
from rewardsmith.search.progress import Progress
from rewardsmith.task import TaskSpec
from rewardsmith.workers.executor import Executor
from rewardsmith.workers.job import WorkerJob
from rewardsmith.workers.run import JobResult, read_json_file, sanitize


def best_record(records: list[CandidateRecord], before: int | None = None) -> CandidateRecord | None:
    """The trained candidate with the highest fitness (ties: higher success, then earlier), optionally only
    from iterations before `before`."""
    trained = [
        r
        for r in records
        if r.status == "trained" and r.fitness is not None and (before is None or r.iteration < before)
    ]
    return max(trained, key=lambda r: (r.fitness, r.success_rate or 0.0, -r.iteration, -r.index), default=None)


def finished_job(folder: Path) -> JobResult | None:
    """The result of a training job that already finished in `folder` (a killed run's leftover), or None."""
    summary = read_json_file(folder / SUMMARY_FILE)
    if isinstance(summary, dict) and summary.get("status") == "ok":
        return JobResult("ok", folder, summary=sanitize(summary), wall_s=float(summary.get("wall_s") or 0.0))
    return None


def clear_training_outputs(folder: Path) -> None:
    """Remove what a cut-short training left in `folder` (partial metrics, episodes, TensorBoard, model), so a
    retraining does not append to it."""
    for name in (METRICS_FILE, EPISODES_FILE, "model.zip"):
        (folder / name).unlink(missing_ok=True)
    shutil.rmtree(folder / "tb", ignore_errors=True)


def retrain_best(folder: RunFolder, config: RunConfig, executor: Executor, progress: Progress) -> dict[str, Any]:
    """Train the best reward with `final_timesteps` on `final_seeds` seeds in parallel; seeds already done are kept."""
    best = best_record(folder.candidates())
    if best is None:
        raise RewardsmithError(f"{folder.path}: no candidate was trained, so there is nothing to retrain")
    final_dir = folder.path / "final"
    final_dir.mkdir(exist_ok=True)
    reward = final_dir / "reward.py"
    if not reward.is_file():
        tmp = final_dir / f".reward.py.{os.getpid()}.tmp"
        shutil.copyfile(folder.cand_dir(best.iteration, best.index) / "reward.py", tmp)
        os.replace(tmp, reward)
    seeds = [config.seed + k for k in range(config.final_seeds or 1)]
    folder.event("final_started", candidate=best.id, seeds=seeds, timesteps=config.final_timesteps)
    results: dict[int, JobResult] = {}
    futures: dict[int, Future[JobResult]] = {}
    for seed in seeds:
        out = final_dir / f"seed_{seed}"
        done = finished_job(out)
        if done is not None:
            results[seed] = done
            continue
        clear_training_outputs(out)
        job = WorkerJob(
            task_path=folder.path / TASK_FILE,
            reward_path=reward,
            out_dir=out,
            timesteps=config.final_timesteps,
            seed=seed,
            device=config.device,
        )
        progress.update(f"final s{seed}", "training", done=0, total=config.final_timesteps)
        futures[seed] = executor.submit(
            job, lambda d, t, seed=seed: progress.update(f"final s{seed}", "training", done=d, total=t)
        )
    for seed, future in futures.items():
        results[seed] = future.result()
        r = results[seed]
        progress.update(
            f"final s{seed}", "trained" if r.ok else "failed", fitness=r.summary.get("fitness"), reason=r.error[:100]
        )
    rows = [
        {
            "seed": seed,
            "status": results[seed].status,
            "fitness": results[seed].summary.get("fitness"),
            "success_rate": results[seed].summary.get("success_rate"),
            "error": results[seed].error or None,
            "wall_s": round(results[seed].wall_s, 3),
        }
        for seed in seeds
    ]
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
    folder.event("final_done", candidate=best.id, fitness_mean=final["fitness_mean"], fitness_std=final["fitness_std"])
    return final


def write_summary(
    folder: RunFolder,
    config: RunConfig,
    spec: TaskSpec,
    status: str,
    *,
    started: float,
    final: dict[str, Any] | None = None,
    error: str | None = None,
) -> dict[str, Any]:
    """Write summary.json (see `rewardsmith.run_folder.folder` for its keys) and return it."""
    records = folder.candidates()
    best = best_record(records)
    done = {e.get("iteration") for e in folder.events() if e.get("event") == "iteration_done"}
    counts = {s: sum(r.status == s for r in records) for s in ("trained", "rejected", "failed", "designed")}
    baseline = load_cached(spec, config.final_timesteps) if final else None
    summary = {
        "status": status,
        "task": spec.name,
        "model": config.model,
        "best_candidate": best.id if best else None,
        "best_fitness": best.fitness if best else None,
        "best_success_rate": best.success_rate if best else None,
        "iterations": len(done),
        "candidates": len(records),
        **counts,
        "repair_requests": sum(r.repair_rounds for r in records),
        **folder.llm_totals(),
        "final": final,
        "human_normalized": normalized_score(spec, final["fitness_mean"], baseline) if final else None,
        "wall_s": round(time.time() - started, 3),
        "error": error,
    }
    folder.write_summary(summary)
    return summary
