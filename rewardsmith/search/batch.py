"""Batch runs: one search per task of a list, all sharing one worker pool (local or Ray).

Tasks run concurrently as threads of this process, so one task's LLM and critic phases overlap another's
training; a task that fails does not stop the others. Layout of `runs/batch/<stamp>-<rand>/`:

    batch.json      batch_id, list (the LIST argument), created_at, versions, config (BatchConfig: executor,
                    workers, ray_address, concurrent_tasks, run_options), tasks [{task, spec, run_dir}]
                    with run_dir relative to the batch folder
    summary.json    batch_id, status (running | finished | failed | interrupted), updated_at, wall_s,
                    tasks [one row per task, keys ROW_KEYS], totals {tasks, finished, failed, tokens,
                    cost_usd}; rewritten whenever a task ends (wall_s adds up all sessions)
    batch.lock      pid of the process running it (present only while it runs)
    <task>/         the task's ordinary run folder (see `rewardsmith.run_folder.folder`)

`resume` continues every task whose run is not finished, through the loop's own resume.
"""

from __future__ import annotations

import glob
import json
import os
import signal
import sys
import threading
import time
import traceback
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from rewardsmith.config import RunConfig
from rewardsmith.errors import RewardsmithError, RunFolderError, TaskSpecError
from rewardsmith.files import read_json, write_json_atomic
from rewardsmith.formatting import pick_number
from rewardsmith.run_folder.claim import RUNS_DIR, adopt, claim_dir, new_run_dir
from rewardsmith.run_folder.folder import RunFolder, versions
from rewardsmith.run_folder.names import BATCH_FILE, BATCH_LOCK_FILE, SUMMARY_FILE, TASK_ERROR_FILE
from rewardsmith.sandbox.interrupt import interruptible
from rewardsmith.sandbox.proc import pid_alive
from rewardsmith.search.batch_live import BatchProgress, make_batch_progress
from rewardsmith.task import TaskSpec, load_task
from rewardsmith.workers.executor import Executor, make_executor
from rewardsmith.workers.run import stop_workers_under

BATCH_LEVEL = ("task", "out", "workers")
"""RunConfig fields a batch sets for each task itself: the task, its folder in the batch folder, the shared pool."""
RUN_OPTIONS = tuple(name for name in RunConfig.model_fields if name not in BATCH_LEVEL)
"""The RunConfig fields a batch passes to every task's run: every one but BATCH_LEVEL."""
ROW_KEYS = (
    "task",
    "run_dir",
    "status",
    "best_candidate",
    "best_fitness",
    "best_seeds",
    "best_success_rate",
    "final_fitness_mean",
    "final_fitness_std",
    "final_seeds",
    "final_success_mean",
    "human_normalized",
    "tokens",
    "cost_usd",
    "llm_calls",
    "wall_s",
    "error",
)
"""Keys of one row of summary.json's `tasks`."""


class BatchConfig(BaseModel):
    """The options of `rewardsmith batch`, serialised into batch.json."""

    model_config = ConfigDict(extra="forbid")
    executor: Literal["local", "ray"] = Field(
        "local", description="Where training runs: this machine or a Ray cluster."
    )
    workers: int | None = Field(
        None,
        ge=1,
        description="Training slots shared by all tasks (local default: cores; ray default: the cluster's CPUs).",
    )
    ray_address: str | None = Field(None, description="Address of a running Ray cluster; None starts a local Ray.")
    concurrent_tasks: int | None = Field(
        None,
        ge=1,
        description="Tasks searching at once (default: 2 x workers, so "
        "training slots stay busy while other tasks talk to the LLM).",
    )
    run_options: dict[str, Any] = Field(
        default_factory=dict, description="RunConfig fields for every task (any of RUN_OPTIONS)."
    )

    def run_config(self, spec: Path, out: Path, workers: int) -> RunConfig:
        """The RunConfig of one task's run (validated, so bad options fail before any work)."""
        unknown = set(self.run_options) - set(RUN_OPTIONS)
        if unknown:
            raise RewardsmithError(f"unknown batch run options: {', '.join(sorted(unknown))}")
        return RunConfig(task=str(spec), out=out, workers=workers, **self.run_options)


def read_task_list(source: str) -> list[TaskSpec]:
    """The specs of LIST: a glob of spec files (`envs/*.toml`), or a text file of spec paths or names, one a
    line, `#` comments allowed; a relative path is resolved from the list file's folder first."""
    if any(c in source for c in "*?["):
        entries: list[tuple[str, Path | None]] = [(p, None) for p in sorted(glob.glob(source))]
        if not entries:
            raise RewardsmithError(f"the pattern {source!r} matches no task spec file")
    else:
        path = Path(source)
        if not path.is_file():
            raise RewardsmithError(
                f"{source}: no such task list file (expected a text file of task names or "
                "spec paths, one a line, or a glob like 'envs/*.toml')"
            )
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as e:
            raise RewardsmithError(f"{source}: cannot read the task list ({e}); it must be UTF-8 text") from None
        lines = [line.split("#", 1)[0].strip() for line in text.splitlines()]
        entries = [(line, path.parent) for line in lines if line]
        if not entries:
            raise RewardsmithError(f"{source}: the task list is empty (one task name or spec path a line)")
    specs: list[TaskSpec] = []
    for entry, folder in entries:
        nearby = folder / entry if folder is not None else None
        try:
            specs.append(load_task(nearby if nearby is not None and nearby.is_file() else entry))
        except TaskSpecError as e:
            raise TaskSpecError(f"{source}: {e}") from None
    names = [s.name for s in specs]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise RewardsmithError(f"{source}: task(s) listed twice: {', '.join(twice)}; each task runs once a batch")
    return specs


def start(
    list_source: str, config: BatchConfig, out: Path | None = None, progress: BatchProgress | None = None
) -> Path:
    """Create a batch folder for LIST and run it to the end; returns the folder."""
    specs = read_task_list(list_source)
    for spec in specs:
        config.run_config(spec.source or Path(spec.name), Path(spec.name), 1)
    path = claim_dir(out) if out else new_run_dir(RUNS_DIR, "batch")
    write_json_atomic(
        path / BATCH_FILE,
        {
            "batch_id": path.name,
            "list": list_source,
            "created_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "versions": versions(),
            "config": config.model_dump(mode="json"),
            "tasks": [{"task": s.name, "spec": str(s.source), "run_dir": s.name} for s in specs],
        },
    )
    return _execute(path, progress)


def resume(batch_dir: Path, progress: BatchProgress | None = None) -> Path:
    """Continue a batch: tasks whose run finished are kept, the others resume (or start) where they stopped."""
    return _execute(Path(batch_dir), progress)


def manifest(batch_dir: Path) -> dict[str, Any]:
    """batch.json; RunFolderError if the folder is not a batch folder."""
    try:
        return json.loads((Path(batch_dir) / BATCH_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise RunFolderError(f"{batch_dir}: not a batch folder (cannot read {BATCH_FILE}: {e})") from None


def _acquire(path: Path) -> None:
    lock = path / BATCH_LOCK_FILE
    try:
        pid = int(lock.read_text().strip())
    except (OSError, ValueError):
        pid = None
    if pid is not None and pid != os.getpid() and pid_alive(pid):
        raise RunFolderError(f"{path}: batch is still running (pid {pid})")
    lock.write_text(f"{os.getpid()}\n")


def _execute(path: Path, progress: BatchProgress | None) -> Path:
    info = manifest(path)
    config = BatchConfig.model_validate(info["config"])
    tasks = info["tasks"]
    _acquire(path)
    progress = progress or make_batch_progress([t["task"] for t in tasks])
    before = float((read_summary(path) or {}).get("wall_s") or 0.0)  # earlier sessions of this batch
    started = time.time()
    lock = threading.Lock()
    status, executor, pool = "failed", None, None

    def save(state: str) -> None:
        with lock:
            write_summary(path, info, state, round(before + time.time() - started, 3))

    progress.start()
    try:
        options = {"ray_address": config.ray_address} if config.executor == "ray" else {}
        executor = make_executor(config.executor, config.workers, **options)
        save("running")
        threads = min(config.concurrent_tasks or 2 * executor.workers, len(tasks))
        pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="batch-task")
        with interruptible(lambda signum: _interrupted(path, tasks, save, signum)):
            outcomes = list(pool.map(lambda t: _run_task(path, t, config, executor, progress, save), tasks))
        status = "finished" if all(o == "finished" for o in outcomes) else "failed"
    except KeyboardInterrupt:
        status = "interrupted"
        for task in tasks:  # workers run in their own sessions: stop them, the run folders stay resumable
            stop_workers_under(path / task["run_dir"])
        raise
    finally:
        if pool is not None:
            pool.shutdown(wait=status != "interrupted", cancel_futures=True)
        if executor is not None and status != "interrupted":
            executor.shutdown()
        progress.stop()
        save(status)
        (path / BATCH_LOCK_FILE).unlink(missing_ok=True)
    return path


def _interrupted(path: Path, tasks: list[dict[str, Any]], save: Callable[[str], None], signum: int) -> None:
    """SIGINT/SIGTERM: stop every task's workers, record the batch as interrupted and say how to continue."""
    for task in tasks:  # workers run in their own sessions: stop them, the run folders stay resumable
        stop_workers_under(path / task["run_dir"])
    save("interrupted")
    name = signal.Signals(signum).name
    print(f"{name}: the batch was stopped; continue it with `rewardsmith resume {path}`", file=sys.stderr, flush=True)


def _run_task(
    path: Path,
    task: dict[str, Any],
    config: BatchConfig,
    executor: Executor,
    progress: BatchProgress,
    done: Callable[[str], None],
) -> str:
    """Run or resume one task's search; returns its final status. Never raises for the task's own failure."""
    from rewardsmith.search.loop import resume as resume_run
    from rewardsmith.search.loop import run as run_search

    name, run_dir = task["task"], path / task["run_dir"]
    view = progress.task(name)
    try:
        if (run_dir / "run.json").is_file():
            if RunFolder(run_dir).status() != "finished":
                resume_run(run_dir, progress=view, executor=executor)
        else:
            adopt(run_dir)  # a start cut short before run.json (under batch.lock: ours): its claim takes it up again
            (run_dir / TASK_ERROR_FILE).unlink(missing_ok=True)  # an earlier session's refusal is tried again
            run_search(
                config.run_config(Path(task["spec"]), run_dir, executor.workers), progress=view, executor=executor
            )
        status, error = RunFolder(run_dir).status(), None
    except RewardsmithError as e:
        status, error = "failed", str(e)
    except Exception as e:  # noqa: BLE001  (one task's crash must not stop the others; kept in the summary)
        status, error = "failed", f"{type(e).__name__}: {e}"
        (path / f"{name}.traceback.txt").write_text(traceback.format_exc(), encoding="utf-8")
    if error is not None and not (run_dir / "run.json").is_file():  # refused before its run folder was made
        write_json_atomic(run_dir / TASK_ERROR_FILE, {"error": error})
    progress.finish(name, status, error)
    done("running")
    return status


def task_row(path: Path, task: dict[str, Any]) -> dict[str, Any]:
    """One row of summary.json from the task's run folder (status "pending" before it starts)."""
    from rewardsmith.search.baselines import load_cached, normalized_score

    folder = RunFolder(path / task["run_dir"])
    row: dict[str, Any] = dict.fromkeys(ROW_KEYS)
    row.update(task=task["task"], run_dir=task["run_dir"], status="pending")
    if not (folder.path / "run.json").is_file():
        refused = read_json(folder.path / TASK_ERROR_FILE)
        if isinstance(refused, dict):
            row.update(status="failed", error=str(refused.get("error")))
        return row
    summary = folder.summary() or {}
    totals = folder.llm_totals()
    final = summary.get("final") or {}
    row.update(
        status=folder.status(),
        best_candidate=summary.get("best_candidate"),
        best_fitness=pick_number(summary.get("best_fitness"), summary.get("best_seeds")),
        best_seeds=len(summary.get("best_seeds") or []) or None,
        best_success_rate=summary.get("best_success_rate"),
        final_fitness_mean=final.get("fitness_mean"),
        final_fitness_std=final.get("fitness_std"),
        final_seeds=sum(
            1 for seed in final.get("seeds") or [] if isinstance(seed, dict) and seed.get("fitness") is not None
        )
        or None,
        final_success_mean=final.get("success_mean"),
        human_normalized=summary.get("human_normalized"),
        tokens=totals["tokens"],
        cost_usd=totals["cost_usd"],
        llm_calls=totals["llm_calls"],
        wall_s=summary.get("wall_s"),
        error=summary.get("error"),
    )
    if row["human_normalized"] is None and final:
        spec = folder.spec()
        row["human_normalized"] = normalized_score(
            spec, final.get("fitness_mean"), load_cached(spec, folder.config().final_timesteps)
        )
    if row["status"] != "finished" and not row["error"]:
        trace = path / f"{task['task']}.traceback.txt"
        row["error"] = trace.read_text(encoding="utf-8").strip().splitlines()[-1] if trace.is_file() else None
    return row


def write_summary(path: Path, info: dict[str, Any], status: str, wall_s: float) -> dict[str, Any]:
    """Write the batch's summary.json from its run folders and return it."""
    rows = [task_row(path, t) for t in info["tasks"]]
    summary = {
        "batch_id": info["batch_id"],
        "status": status,
        "updated_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "wall_s": wall_s,
        "tasks": rows,
        "totals": {
            "tasks": len(rows),
            "finished": sum(r["status"] == "finished" for r in rows),
            "failed": sum(r["status"] not in ("finished", "running", "pending") for r in rows),
            "tokens": sum(r["tokens"] or 0 for r in rows),
            "cost_usd": round(sum(r["cost_usd"] or 0.0 for r in rows), 6),
        },
    }
    write_json_atomic(path / SUMMARY_FILE, summary)
    return summary


def read_summary(path: Path) -> dict[str, Any] | None:
    """summary.json of a batch folder, if readable."""
    try:
        return json.loads((Path(path) / SUMMARY_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
