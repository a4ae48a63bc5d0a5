"""The Ray executor: each training job is a Ray task that runs the same sandboxed worker (`run_job`) on
whichever node Ray picks, so a batch can spread over a cluster.

The run folder need not be on a shared filesystem. The driver ships the job's inputs (the job, the task
spec with its trusted modules, the reward file) to the task; the task runs the job in a temp folder on
its node and returns the worker's output files as a size-capped tar archive, which the driver unpacks
into the candidate folder (regular files with allow-listed names only). `ray.json` in that folder
records every attempt (node, error).

A lost node or a killed Ray worker fails the Ray task with a `RayError`; the candidate is then resubmitted
(`retries` times at most) instead of failing the run. Candidate faults (a bad reward, a crash in the
sandbox, a timeout) are ordinary results and are never retried. A retried task first kills workers that
a dead Ray worker left behind on its node.
"""

from __future__ import annotations

import io
import json
import logging
import os
import shutil
import tarfile
import tempfile
import time
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path, PurePosixPath
from typing import Any

from rewardsmith.errors import RewardsmithError, require_extra
from rewardsmith.files import write_json_atomic
from rewardsmith.run_folder.names import ERROR_FILE, HEARTBEAT_FILE, JOB_FILE, LOG_FILE, RAY_ATTEMPTS_FILE, REWARD_FILE
from rewardsmith.task import read_task
from rewardsmith.workers.job import MODES, WorkerJob, lane
from rewardsmith.workers.run import JobResult, ProgressFn, run_job, stop_workers_under

log = logging.getLogger(__name__)

MAX_OUTPUT_BYTES = 512 * 2**20
"""Largest total size of the output files a task may return."""
QUICK_CPUS = 0
"""CPUs a cheap check (critic, screen, evaluation) reserves on the cluster: none, so Ray places it even on a node
whose CPUs are all taken by training tasks (any fraction above 0 would wait for a free share)."""
TEMP_PREFIX = "rewardsmith-ray-"
LOOPBACK = ("127.0.0.1", "localhost", "::1", "[::1]")


class UnsafeArchive(RewardsmithError):
    """An output archive with a member that could write outside its folder or is not a plain file."""


# -- what travels -----------------------------------------------------------------------------------------


def job_inputs(job: WorkerJob) -> dict[str, bytes]:
    """The files a job reads, by relative name: `task/<spec>.toml`, its trusted modules, `reward.py`, and a
    screen job's archived trajectories as `trajectories/<i>.npz`."""
    spec = read_task(job.task_path)
    files = {f"task/{job.task_path.name}": job.task_path.read_bytes()}
    modules = {spec.fitness.scorer.split(":")[0]} | ({spec.env.split(":")[0]} if ":" in spec.env else set())
    for module in sorted(modules):
        relative = module.replace(".", "/") + ".py"
        if (spec.folder / relative).is_file():
            files[f"task/{relative}"] = (spec.folder / relative).read_bytes()
    if job.reward_path is not None:
        files[REWARD_FILE] = Path(job.reward_path).read_bytes()
    for option in MODES[job.mode].input_options:  # e.g. a screen job's archived trajectories
        for i, path in enumerate(job.options.get(option, {}).values()):
            files[f"{option}/{i}{Path(path).suffix}"] = Path(path).read_bytes()
    return files


def output_names(mode: str) -> set[str]:
    """Top-level names a worker of this mode writes (a folder name covers all below it)."""
    return {ERROR_FILE, LOG_FILE, *MODES[mode].outputs}


def is_output_name(name: str, mode: str) -> bool:
    """Whether a relative path is one the driver accepts back from a worker of this mode."""
    parts = PurePosixPath(name).parts
    return bool(parts) and not name.startswith("/") and ".." not in parts and parts[0] in output_names(mode)


def pack_outputs(folder: Path, mode: str, cap: int = MAX_OUTPUT_BYTES) -> bytes:
    """The allow-listed regular files of a worker's folder as a gzipped tar; RewardsmithError over `cap`."""
    files = sorted(
        p
        for p in folder.rglob("*")
        if p.is_file() and not p.is_symlink() and is_output_name(p.relative_to(folder).as_posix(), mode)
    )
    total = sum(p.stat().st_size for p in files)
    if total > cap:
        raise RewardsmithError(f"worker output is {total / 2**20:.0f} MiB, over the {cap / 2**20:.0f} MiB cap")
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", compresslevel=1) as tar:
        for path in files:
            tar.add(path, arcname=path.relative_to(folder).as_posix(), recursive=False)
    return buffer.getvalue()


def unpack_outputs(data: bytes, dest: Path, mode: str) -> list[str]:
    """Unpack an output archive into `dest`; rejects (whole) any member that is not a plain file or
    folder with an allow-listed relative name. Returns the file names."""
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        members = tar.getmembers()
        for m in members:
            if not (m.isfile() or m.isdir()) or not is_output_name(m.name, mode):
                raise UnsafeArchive(
                    f"output archive member {m.name!r} ({'file' if m.isfile() else 'link or device'})"
                    " is not an allowed worker output"
                )
        tar.extractall(dest, members=members, filter="data")
    return [m.name for m in members if m.isfile()]


# -- the Ray task ---------------------------------------------------------------------------------------


def reap_orphans(base: Path) -> list[int]:
    """Kill sandboxed workers left by Ray workers that died on this node, and remove their temp folders."""
    from rewardsmith.sandbox.proc import pid_alive

    killed = []
    for folder in base.glob(f"{TEMP_PREFIX}*"):
        try:
            owner = int(folder.name.removeprefix(TEMP_PREFIX).split("-")[0])
        except ValueError:
            continue
        if pid_alive(owner):
            continue
        killed += stop_workers_under(folder)  # workers whose job files lie in that folder
        shutil.rmtree(folder, ignore_errors=True)
    return killed


def run_on_node(job_json: str, inputs: dict[str, bytes], cap: int = MAX_OUTPUT_BYTES) -> dict[str, Any]:
    """Body of the Ray task: unpack the inputs into a temp folder, run the job, return its result and files."""
    base = Path(tempfile.gettempdir())
    reaped = reap_orphans(base)
    root = Path(tempfile.mkdtemp(prefix=f"{TEMP_PREFIX}{os.getpid()}-", dir=base))
    try:
        for name, data in inputs.items():
            path = root / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
        job = WorkerJob.model_validate_json(job_json)
        job = job.model_copy(
            update={
                "task_path": root / "task" / job.task_path.name,
                "out_dir": root / "out",
                "reward_path": root / REWARD_FILE if job.reward_path is not None else None,
            }
        )
        for option in MODES[job.mode].input_options:
            job.options[option] = {
                label: str(root / option / f"{i}{Path(path).suffix}")
                for i, (label, path) in enumerate(job.options.get(option, {}).items())
            }
        result = run_job(job)
        reply = {
            "status": result.status,
            "summary": result.summary,
            "error": result.error,
            "error_kind": result.error_kind,
            "wall_s": result.wall_s,
            "files": b"",
            "node": _node_id(),
            "pid": os.getpid(),
            "reaped": reaped,
        }
        try:
            reply["files"] = pack_outputs(job.out_dir, job.mode, cap)
        except RewardsmithError as e:
            reply.update(status="failed", error=str(e))
        return reply
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _node_id() -> str:
    import ray

    return ray.get_runtime_context().get_node_id()


def import_ray(address: str | None):
    """Import Ray. Without an address, or with a loopback one, Ray is first told to stay on one machine, so its
    processes bind to and talk over 127.0.0.1 only (Ray otherwise swaps loopback for the host's address)."""
    host = address.rsplit(":", 1)[0] if address else "127.0.0.1"
    if host in LOOPBACK:
        os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")  # read once, when Ray is imported
    require_extra("ray")
    import ray

    return ray


# -- the executor ---------------------------------------------------------------------------------------


class RayExecutor:
    """Runs worker jobs as Ray tasks (one CPU each), at most `workers` in flight from this driver."""

    def __init__(self, workers: int | None = None, ray_address: str | None = None, retries: int = 2) -> None:
        ray = import_ray(ray_address)
        self.retries = retries
        self._remote = ray.remote(num_cpus=1, max_retries=0)(run_on_node)  # the driver does the retries
        self._owns_ray = not ray.is_initialized()
        if self._owns_ray:
            os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
            quiet = dict(logging_level=logging.WARNING, log_to_driver=False)
            try:
                if ray_address:
                    ray.init(address=ray_address, **quiet)
                else:
                    ray.init(
                        num_cpus=workers or os.cpu_count() or 1,
                        include_dashboard=False,
                        _node_ip_address="127.0.0.1",
                        **quiet,
                    )
            except (ConnectionError, RuntimeError, ValueError) as e:
                raise RewardsmithError(
                    f"cannot {'connect to Ray at ' + ray_address if ray_address else 'start Ray'}: "
                    f"{str(e).strip().splitlines()[-1][:300]} (start the cluster with "
                    "`ray start --head`, check --ray-address and the cluster's auth token)"
                ) from e
        cluster_cpus = int(ray.cluster_resources().get("CPU", 1))
        self.workers = max(1, workers or cluster_cpus)
        self._pool = ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="rewardsmith-ray")
        self._quick = ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="rewardsmith-ray-quick")

    def submit(self, job: WorkerJob, on_progress: ProgressFn | None = None) -> Future[JobResult]:
        """Queue a job; it is sent to the cluster as soon as one of this driver's slots of its lane is free. Cheap
        checks (a `quick` mode) have their own slots and ask the cluster for no whole CPU (`QUICK_CPUS`), so they
        start at once even while every CPU trains."""
        pool = self._quick if lane(job) == "quick" else self._pool
        return pool.submit(self._run, job, on_progress)

    def _run(self, job: WorkerJob, on_progress: ProgressFn | None) -> JobResult:
        import ray

        out = Path(job.out_dir)
        out.mkdir(parents=True, exist_ok=True)
        for stale in (HEARTBEAT_FILE, RAY_ATTEMPTS_FILE, *output_names(job.mode)):  # a killed attempt's leftovers
            if (out / stale).is_dir():
                shutil.rmtree(out / stale)
            else:
                (out / stale).unlink(missing_ok=True)
        write_json_atomic(out / JOB_FILE, json.loads(job.model_dump_json()))
        job_json, inputs = job.model_dump_json(), job_inputs(job)
        attempts: list[dict[str, Any]] = []
        started = time.monotonic()
        for attempt in range(self.retries + 1):
            try:
                remote = self._remote.options(num_cpus=QUICK_CPUS) if lane(job) == "quick" else self._remote
                reply = ray.get(remote.remote(job_json, inputs))
            except ray.exceptions.TaskCancelledError:
                raise
            except ray.exceptions.RayError as e:
                reason = f"{type(e).__name__}: {str(e).strip().splitlines()[0][:300] if str(e).strip() else ''}"
                attempts.append({"attempt": attempt + 1, "error": reason})
                write_json_atomic(out / RAY_ATTEMPTS_FILE, {"attempts": attempts})
                log.warning(
                    "ray: %s attempt %d lost (%s)%s",
                    out,
                    attempt + 1,
                    reason,
                    "; resubmitting" if attempt < self.retries else "",
                )
                continue
            attempts.append(
                {
                    "attempt": attempt + 1,
                    "node": reply["node"],
                    "pid": reply["pid"],
                    "status": reply["status"],
                    "reaped_workers": reply["reaped"],
                }
            )
            write_json_atomic(out / RAY_ATTEMPTS_FILE, {"attempts": attempts})
            return self._finish(job, reply, on_progress)
        return JobResult(
            "failed",
            out,
            error=f"ray: the job was lost {len(attempts)} times: {attempts[-1]['error']}",
            wall_s=time.monotonic() - started,
        )

    @staticmethod
    def _finish(job: WorkerJob, reply: dict[str, Any], on_progress: ProgressFn | None) -> JobResult:
        out = Path(job.out_dir)
        try:
            if reply["files"]:
                unpack_outputs(reply["files"], out, job.mode)
        except (UnsafeArchive, tarfile.TarError) as e:
            return JobResult("failed", out, error=f"ray: output rejected: {e}", wall_s=reply["wall_s"])
        result = JobResult(
            reply["status"],
            out,
            summary=reply["summary"],
            error=reply["error"],
            wall_s=reply["wall_s"],
            error_kind=str(reply.get("error_kind") or ""),
        )
        if result.ok and on_progress is not None:
            steps = int(result.summary.get("timesteps") or job.timesteps or 0)
            on_progress(steps, steps)
        return result

    def shutdown(self) -> None:
        """Wait for jobs in flight, then disconnect (and stop the local Ray instance if this started it)."""
        import ray

        self._quick.shutdown(wait=True, cancel_futures=True)
        self._pool.shutdown(wait=True, cancel_futures=True)
        if self._owns_ray:
            ray.shutdown()
