"""Parent side of a worker job: write `job.json`, start the sandboxed worker, read back what it wrote."""

from __future__ import annotations

import json
import math
import os
import signal
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rewardsmith.files import read_capped, read_json, remove_tree, write_bytes_atomic, write_json_atomic
from rewardsmith.run_folder.names import ERROR_FILE, HEARTBEAT_FILE, JOB_FILE, LOG_FILE
from rewardsmith.run_folder.records import SUMMARY_FILE
from rewardsmith.sandbox.launch import WorkerResult, run_worker
from rewardsmith.workers.job import MODES, WorkerJob

ProgressFn = Callable[[int, int], None]
MAX_RESULT_BYTES = 1_000_000


@dataclass
class JobResult:
    """What came back from one worker: status "ok", "rejected" (the reward's fault) or "failed"."""

    status: str
    out_dir: Path
    summary: dict[str, Any] = field(default_factory=dict)
    error: str = ""
    wall_s: float = 0.0
    error_kind: str = ""
    """The worker's own word for the error (`error.json`'s kind: "reward", "task", "crash", "untraceable",
    "backend"); it
    comes from a process that may have run candidate code, so it may only steer towards the safe path."""

    @property
    def ok(self) -> bool:
        return self.status == "ok"


def default_timeouts(job: WorkerJob) -> tuple[float, float]:
    """(wall, stall) limits in seconds: generous for training, tight when the worker stops making progress."""
    steps = job.timesteps or 100_000
    wall = float(job.options.get("timeout_s", 180 + steps / 40))
    stall = float(job.options.get("stall_timeout_s", 120))
    return wall, stall


def run_job(job: WorkerJob, *, on_progress: ProgressFn | None = None) -> JobResult:
    """Run one job in a fresh sandboxed worker and classify the outcome; never raises for candidate faults."""
    out = Path(job.out_dir).resolve()
    out.mkdir(parents=True, exist_ok=True)
    job = job.model_copy(
        update={
            "out_dir": out,
            "task_path": Path(job.task_path).resolve(),
            "reward_path": Path(job.reward_path).resolve() if job.reward_path else None,
        }
    )
    for stale in (ERROR_FILE, HEARTBEAT_FILE, *MODES[job.mode].outputs):
        _remove(out / stale)  # leftovers of a killed attempt must not mix with this one
    job_path = out / JOB_FILE
    write_json_atomic(job_path, json.loads(job.model_dump_json()))
    protected = _protected_files(out, job.mode)
    wall, stall = default_timeouts(job)
    heartbeat = out / HEARTBEAT_FILE

    def poll() -> None:
        if on_progress is not None:
            done, total = read_heartbeat(heartbeat)
            if total:
                on_progress(done, total)

    result = run_worker(
        job.mode,
        job_path,
        cwd=out,
        log_path=out / LOG_FILE,
        timeout_s=wall,
        heartbeat_path=heartbeat,
        stall_timeout_s=stall,
        on_poll=poll,
        quota_bytes=min(job.sandbox.folder_mb, MODES[job.mode].folder_mb or job.sandbox.folder_mb) * 2**20,
    )
    _remove_symlinks(out)
    if result.over_quota:  # free the disk: keep only the parent's own files and the capped log
        for entry in out.iterdir():
            if entry.name not in protected and entry.name != LOG_FILE:
                _remove(entry)
    tampered = _restore(out, protected)
    if tampered:
        return JobResult(
            "rejected",
            out,
            error=f"the worker modified files it must not touch: {', '.join(tampered)} (restored)",
            wall_s=result.wall_s,
        )
    return classify(out, result)


def _remove(path: Path) -> None:
    remove_tree(path)  # iterative and fd-relative: a planted deep tree cannot crash the parent


def _protected_files(out: Path, mode: str) -> dict[str, bytes]:
    """The parent's own small files in the job folder (reward.py, job.json, candidate.json, ...)."""
    skip = {ERROR_FILE, HEARTBEAT_FILE, LOG_FILE, *MODES[mode].outputs}
    found = {p.name: read_capped(p, MAX_RESULT_BYTES) for p in out.iterdir() if p.name not in skip}
    return {name: content for name, content in found.items() if content is not None}


def _restore(out: Path, protected: dict[str, bytes]) -> list[str]:
    """Put back any protected file the worker changed or removed; returns their names."""
    tampered = []
    for name, content in protected.items():
        path = out / name
        unchanged = read_capped(path, MAX_RESULT_BYTES) == content
        if not unchanged:
            tampered.append(name)
            _remove(path)
            write_bytes_atomic(path, content)
    return tampered


def _remove_symlinks(out: Path, max_entries: int = 100_000, max_depth: int = 32) -> None:
    """A worker may plant symlinks to make the parent read or write elsewhere: remove them all. The walk is
    iterative and capped, so a planted deep or huge tree cannot crash or stall the parent; anything below
    the caps is removed whole."""
    stack, seen = [(out, 0)], 0
    while stack:
        folder, depth = stack.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            seen += 1
            path = Path(entry.path)
            if entry.is_symlink():
                path.unlink(missing_ok=True)
            elif entry.is_dir(follow_symlinks=False):
                if depth + 1 >= max_depth or seen > max_entries:
                    remove_tree(path)
                else:
                    stack.append((path, depth + 1))


def classify(out: Path, result: WorkerResult) -> JobResult:
    """Turn a worker's exit and files into a JobResult (files from the worker are parsed defensively)."""
    if result.over_quota:
        return JobResult("rejected", out, error=result.reason, wall_s=result.wall_s)
    error = read_json_file(out / ERROR_FILE)
    summary = read_json_file(out / SUMMARY_FILE) if result.returncode == 0 else None
    if result.returncode == 0 and isinstance(summary, dict):
        return JobResult("ok", out, summary=sanitize(summary), wall_s=result.wall_s)
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        status = "failed" if error.get("kind") == "task" else "rejected"
        kind = error.get("kind")
        kind = kind[:40] if isinstance(kind, str) else ""
        return JobResult(status, out, error=error["message"][:2000], wall_s=result.wall_s, error_kind=kind)
    reason = result.reason or f"worker exited with code {result.returncode} without a result"
    tail = result.output_tail.strip().splitlines()[-1:] if result.output_tail else []
    return JobResult("rejected", out, error=reason + (f" ({tail[0][:300]})" if tail else ""), wall_s=result.wall_s)


def read_heartbeat(path: Path) -> tuple[int, int]:
    """(timesteps done, total) from a worker's heartbeat file; (0, 0) if unreadable (never blocks)."""
    try:
        done, total = (read_capped(path, 64) or b"").decode().split()
        return int(done), int(total)
    except (UnicodeDecodeError, ValueError):
        return 0, 0


read_json_file = read_json
"""A JSON file written by an untrusted worker (see `rewardsmith.files.read_json`)."""


def sanitize(summary: dict[str, Any]) -> dict[str, Any]:
    """Keep numbers finite and known keys typed, so a forged or odd summary cannot break reports."""
    clean: dict[str, Any] = {}
    for key, value in summary.items():
        if isinstance(value, (bool, str)) or value is None:
            clean[key] = value
        elif isinstance(value, (int, float)):
            clean[key] = value if math.isfinite(value) else None
        elif isinstance(value, dict):
            clean[key] = {str(k): v for k, v in value.items() if isinstance(v, (int, float, str, bool))}
    return clean


def stop_workers_under(root: Path) -> list[int]:
    """SIGKILL worker processes whose job files lie under `root` (left running by a killed parent); returns
    their pids. Workers run in their own session, so a parent killed with SIGKILL does not take them along."""
    from rewardsmith.sandbox.launch import kill_leftovers, worker_pids

    stopped = worker_pids(root)
    for pid in stopped:
        try:
            os.killpg(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        kill_leftovers(pid)
    return stopped
