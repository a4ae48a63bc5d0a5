"""Training a reward and measuring the policy, the one way the loop, the final retraining and `train` do it.

`train_and_evaluate` runs the candidate's training worker (its only trusted output: `policy.safetensors`),
then, after that worker has ended, empties and recreates `eval/` below its folder, copies the weights there
(size-capped, no symlink or FIFO followed), draws fresh evaluation seeds that no training worker could know,
and runs the evaluation worker, which never loads reward code. The fitness that decides anything is that
worker's `Evaluation`; whatever the reward did inside its own process cannot change it.
"""

from __future__ import annotations

import secrets
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import Any

from rewardsmith.errors import RewardsmithError
from rewardsmith.files import read_capped, remove_tree, write_bytes_atomic
from rewardsmith.reward.wrappers import RewardSource
from rewardsmith.run_folder.folder import RunFolder
from rewardsmith.run_folder.names import RANDOM_POLICY_DIR, TB_DIR, WARM_START_FILE, Event
from rewardsmith.run_folder.records import (
    EVAL_DIR,
    EVALUATION_FILE,
    METRICS_FILE,
    MODEL_FILE,
    SUMMARY_FILE,
    TRAJECTORIES_FILE,
    WEIGHTS_FILE,
    CandidateRecord,
    Evaluation,
    read_record,
)
from rewardsmith.stages.screen import RANDOM_LABEL, trained_archives
from rewardsmith.task import TaskSpec
from rewardsmith.workers.backends import CPU_BACKEND
from rewardsmith.workers.evaluate import MAX_WEIGHTS_BYTES
from rewardsmith.workers.executor import Executor
from rewardsmith.workers.job import WorkerJob
from rewardsmith.workers.run import JobResult, ProgressFn

BUDGET_FACTOR = 10.0
"""A reward may cost this many times the critic's measured median per call during training ..."""
BUDGET_FLOOR_S = 0.001
"""... but never less than this (scheduler noise on a busy machine must not stop an honest reward)."""
TRAINING_OUTPUTS = (METRICS_FILE, SUMMARY_FILE, MODEL_FILE, WEIGHTS_FILE, TB_DIR, EVAL_DIR)


def train_and_evaluate(
    spec_path: Path | None,
    reward_path: Path | None,
    out_dir: Path,
    *,
    timesteps: int,
    seed: int,
    eval_episodes: int,
    executor: Executor,
    device: str = "cpu",
    on_progress: ProgressFn | None = None,
    on_eval_progress: ProgressFn | None = None,
    continue_from: Path | None = None,
    timesteps_done: int = 0,
    reward_budget_s: float | None = None,
    reward_source: RewardSource = "candidate",
    options: dict[str, Any] | None = None,
) -> tuple[JobResult, Evaluation | None]:
    """Train a reward in `out_dir`, then measure the policy in `out_dir/eval/`; returns (result, evaluation).

    The result is the training job's (status, error, summary) with the evaluation's wall time added; the
    evaluation is None when either worker failed, and the result then says why. `on_progress` hears the training's
    (steps done, total), `on_eval_progress` the evaluation's (episode steps done, total).
    `continue_from`: an earlier rung's weights of the same candidate (`policy.safetensors`, or a model zip of
    which only `policy.pth` is read, tensors only), trained `timesteps_done` steps; training goes on from those
    weights for `timesteps` more. `reward_budget_s`: the per-call budget the training worker enforces (see
    `reward_budget`). Nothing an earlier worker left in `out_dir` is read: its outputs are cleared first."""
    if spec_path is None:
        raise RewardsmithError("the task spec was not read from a file, so no worker can re-read it")
    out_dir = Path(out_dir)
    clear_training_outputs(out_dir)
    job_options: dict[str, Any] = dict(options or {})
    job_options.setdefault("gpu_workers", max(1, executor.workers))  # they share one GPU
    if reward_budget_s:
        job_options["reward_budget_s"] = reward_budget_s
    if continue_from is not None:
        job_options["continue_from"] = str(Path(continue_from).resolve())
        job_options["resume_timesteps"] = timesteps_done
    job = WorkerJob(
        task_path=spec_path,
        reward_path=reward_path,
        reward_source=reward_source,
        out_dir=out_dir,
        timesteps=timesteps,
        seed=seed,
        device=device,
        options=job_options,
    )
    result = executor.submit(job, on_progress).result()
    fallback = backend_fallback(result, job_options)
    if fallback is not None:  # untraceable on MJX, or MJX failed here: the same job on the CPU backend, emptied folder
        clear_training_outputs(out_dir)
        job = job.model_copy(update={"options": {**job_options, "backend": CPU_BACKEND}})
        result = executor.submit(job, on_progress).result()
        result.wall_s += fallback["wall_s"]
    result.summary.pop("backend_fallback", None)  # only the parent says so, never a worker's summary
    if fallback is not None:
        result.summary["backend_fallback"] = fallback
    if not result.ok:
        return result, None
    trained_steps = int(result.summary.get("timesteps") or timesteps_done + timesteps)
    evaluated, evaluation = evaluate_policy(
        spec_path,
        out_dir,
        episodes=eval_episodes,
        executor=executor,
        trained_timesteps=trained_steps,
        on_progress=on_eval_progress,
    )
    wall_s = result.wall_s + evaluated.wall_s
    if evaluation is None:
        return JobResult(evaluated.status, out_dir, error=f"[evaluation] {evaluated.error}", wall_s=wall_s), None
    summary = {**result.summary, "timesteps": trained_steps}
    return JobResult("ok", out_dir, summary=summary, wall_s=wall_s), evaluation


def backend_fallback(result: JobResult, options: dict[str, Any]) -> dict[str, Any] | None:
    """When a training asked for a backend other than the CPU one failed because the reward does not trace to JAX
    (the worker's error kind "untraceable") or the backend failed on this machine ("backend": XLA could not compile
    or run), what the fallback to `CPU_BACKEND` records: {from, to, why, wall_s}; else None. The kind comes from a
    worker that ran the candidate, which can at most choose the CPU backend."""
    requested = options.get("backend")
    if result.ok or result.error_kind not in ("untraceable", "backend") or requested == CPU_BACKEND:
        return None
    return {
        "from": str(requested or "the spec's backend"),
        "to": CPU_BACKEND,
        "why": result.error[:500],
        "wall_s": round(result.wall_s, 3),
    }


def fallback_line(fallback: dict[str, Any]) -> str:
    """One line for the user about a `backend_fallback` record."""
    return f"trained on {fallback.get('to')} instead of {fallback.get('from')}: {fallback.get('why')}"


def evaluate_policy(
    spec_path: Path,
    out_dir: Path,
    *,
    episodes: int,
    executor: Executor,
    trained_timesteps: int = 0,
    on_progress: ProgressFn | None = None,
    random_policy: bool = False,
) -> tuple[JobResult, Evaluation | None]:
    """Measure the policy a finished training job left in `out_dir` with the evaluation worker, in a freshly
    made `out_dir/eval/`, on `episodes` fresh seeds; returns (the worker's result, its Evaluation or None).
    `random_policy`: play uniform random actions instead (no weights; the screen's reference episodes)."""
    eval_dir = Path(out_dir) / EVAL_DIR
    remove_tree(eval_dir)
    eval_dir.mkdir(parents=True)
    policy: dict[str, Any] = {"random_policy": True}
    if not random_policy:
        weights = read_capped(Path(out_dir) / WEIGHTS_FILE, MAX_WEIGHTS_BYTES)
        if weights is None:
            return JobResult(
                "rejected", eval_dir, error=f"the training worker left no readable {WEIGHTS_FILE} (a regular file)"
            ), None
        write_bytes_atomic(eval_dir / WEIGHTS_FILE, weights)
        policy = {"weights": {"policy": str((eval_dir / WEIGHTS_FILE).resolve())}}
    seeds = fresh_seeds(episodes)
    job = WorkerJob(
        mode="evaluate",
        task_path=spec_path,
        reward_source="native",
        out_dir=eval_dir,
        seed=seeds[0],
        options={
            "seeds": seeds,
            "trained_timesteps": trained_timesteps,
            **policy,
            "timeout_s": 600 + 10 * episodes,
        },
    )
    result = executor.submit(job, on_progress).result()
    if not result.ok:
        return result, None
    evaluation = read_record(eval_dir / EVALUATION_FILE, Evaluation)
    if evaluation is None or evaluation.seeds != seeds or evaluation.fitness_mean is None:
        return JobResult("failed", eval_dir, error="the evaluation worker wrote no valid evaluation.json"), None
    return result, evaluation


def remeasure(
    spec_path: Path,
    weights: Path,
    out_dir: Path,
    *,
    episodes: int,
    executor: Executor,
    trained_timesteps: int = 0,
    on_progress: ProgressFn | None = None,
) -> tuple[JobResult, Evaluation | None]:
    """Measure an already trained policy again on fresh episodes: its `weights` (size-capped, a regular file) are
    copied into an emptied `out_dir`, then `evaluate_policy` runs there; nothing is trained. A policy picked as the
    best of several noisy measurements is reported from this new one, not from the one that picked it."""
    clear_training_outputs(out_dir)
    Path(out_dir).mkdir(parents=True, exist_ok=True)
    data = read_capped(weights, MAX_WEIGHTS_BYTES)
    if data is None:
        return JobResult("rejected", out_dir, error=f"{weights} is missing, not a regular file, or too large"), None
    write_bytes_atomic(Path(out_dir) / WEIGHTS_FILE, data)
    return evaluate_policy(
        spec_path,
        out_dir,
        episodes=episodes,
        executor=executor,
        trained_timesteps=trained_timesteps,
        on_progress=on_progress,
    )


def random_policy_archive(folder: RunFolder, spec_path: Path | None, executor: Executor, episodes: int) -> Path | None:
    """The screen's reference episodes: `episodes` of uniform random actions, played once per run by the
    evaluation worker (no candidate code) into `random_policy/eval/`; later calls (and a resume) reuse them once
    the parent recorded them. None when the evaluation failed."""
    archive = folder.path / RANDOM_POLICY_DIR / EVAL_DIR / TRAJECTORIES_FILE
    if spec_path is None:
        return None
    if archive.is_file() and any(e.get("event") == Event.RANDOM_POLICY_EVALUATED for e in folder.events()):
        return archive
    result, evaluation = evaluate_policy(
        spec_path, folder.path / RANDOM_POLICY_DIR, episodes=episodes, executor=executor, random_policy=True
    )
    if evaluation is None or not archive.is_file():
        return None
    folder.event(Event.RANDOM_POLICY_EVALUATED, episodes=len(evaluation.fitness), fitness_mean=evaluation.fitness_mean)
    return archive


def screen_archives(
    folder: RunFolder,
    spec: TaskSpec,
    executor: Executor,
    before_iteration: int | None = None,
    lock: AbstractContextManager = nullcontext(),
) -> dict[str, Path]:
    """The trajectory screen's archive: every trained candidate's evaluation episodes (only earlier iterations'
    with `before_iteration`) and the run's random-action episodes (`random_policy_archive`, played under `lock`
    so that concurrent screens play them once)."""
    with lock:
        reference = random_policy_archive(folder, spec.source, executor, max(3, spec.train.eval_episodes))
    return {
        **trained_archives(folder, before_iteration=before_iteration),
        **({RANDOM_LABEL: reference} if reference else {}),
    }


def warm_start(folder: RunFolder, record: CandidateRecord) -> Path | None:
    """`--warm-start` (stable-eureka's): copy the policy weights of the candidate's parent (the best of the
    earlier iterations) into its folder, for its first training job to start from; None without a trained parent.
    The weights are tensors only and the training worker parses them strictly, as the evaluation worker does."""
    parent = next((r for r in folder.candidates() if r.id == record.parent), None)
    if parent is None or parent.status != "trained":
        return None
    weights = read_capped(folder.cand_dir(parent.iteration, parent.index) / WEIGHTS_FILE, MAX_WEIGHTS_BYTES)
    if weights is None:
        return None
    target = folder.cand_dir(record.iteration, record.index) / WARM_START_FILE
    write_bytes_atomic(target, weights)
    return target


def fresh_seeds(n: int) -> list[int]:
    """`n` distinct episode seeds from the OS's randomness, drawn after training ended: no training worker,
    and no reward code, can know or steer them (they are recorded in `evaluation.json`)."""
    seeds: list[int] = []
    while len(seeds) < max(n, 1):
        seed = secrets.randbelow(2**31 - 1)
        if seed not in seeds:
            seeds.append(seed)
    return seeds


def reward_budget(critic: dict[str, Any] | None) -> float | None:
    """The per-call budget in seconds for the training worker: `BUDGET_FACTOR` times the critic's measured median
    (from `critic.json` as the parent wrote it: `stats.dynamic.time_ms.median`), at least `BUDGET_FLOOR_S`; None
    if the critic measured nothing."""
    try:
        median_ms = float((critic or {})["stats"]["dynamic"]["time_ms"]["median"])
    except (KeyError, TypeError, ValueError):
        return None
    return max(BUDGET_FACTOR * median_ms / 1000, BUDGET_FLOOR_S) if median_ms >= 0 else None


def clear_training_outputs(folder: Path) -> None:
    """Remove what an earlier or cut-short training left in `folder` (metrics, TensorBoard, weights, model, its
    evaluation), so a retraining neither appends to it nor reads it."""
    for name in TRAINING_OUTPUTS:
        remove_tree(Path(folder) / name)


def record_training(
    folder: RunFolder,
    record: CandidateRecord,
    result: JobResult,
    evaluation: Evaluation | None,
    timesteps: int,
) -> CandidateRecord:
    """Save a candidate's training outcome: its trusted numbers (from `evaluation`, never from the training
    worker) or the failure, and the `training_done` event; returns the updated record."""
    update: dict[str, Any] = {"wall_s": round(record.wall_s + result.wall_s, 3)}
    if result.ok and evaluation is not None:
        update.update(
            status="trained",
            fitness=evaluation.fitness_mean,
            fitness_se=evaluation.fitness_se,
            episodes=len(evaluation.fitness),
            success_rate=evaluation.success_rate,
            timesteps=int(result.summary.get("timesteps") or timesteps),
            reason="",
        )
    else:
        update.update(status="failed", reason=f"[training] {result.error}")
    record = record.model_copy(update=update)
    if (
        record.status == "trained"
        and evaluation is not None
        and not folder.cand_of(record).accept_evaluation(evaluation)
    ):
        record = record.model_copy(update={"status": "failed", "reason": "[evaluation] evaluation.json changed"})
    folder.save_candidate(record)
    folder.event(
        Event.TRAINING_DONE,
        candidate=record.id,
        status=record.status,
        fitness=record.fitness,
        fitness_se=record.fitness_se,
        success_rate=record.success_rate,
        timesteps=record.timesteps,
        eval_seeds=evaluation.seeds if evaluation else None,
        error=record.reason or None,
        backend_fallback=result.summary.get("backend_fallback"),
    )
    return record
