"""The training worker: one reward (or baseline) trained by a backend. Its only trusted output is the policy.

Runs inside a sandboxed worker process (`rewardsmith.workers.main train JOB`) with the candidate's reward
loaded, so nothing it writes decides anything except the policy's weights, which the parent hands to the
evaluation worker (`rewardsmith.workers.evaluate`). The learner is a training backend
(`rewardsmith.workers.backends`: the job option `backend`, else the spec's `[train] backend`); this module
owns what is common to all of them: the reward read before lock-down and loaded after it, the per-call budget,
the checkpoint, and writing into the job's folder `policy.safetensors` (the policy's tensors, no pickle),
`summary.json` (how the job ran; no fitness), with the backend's `metrics.jsonl` (kind "train": per-component
episode sums during training; kind "eval": a periodic learning-curve point on a separate env; both "reported by
the training worker") and its own extras (SB3: `model.zip` for the video worker, TensorBoard logs under `tb/`).

The train envs carry no scorer (fitness is measured elsewhere), so a step costs the env, the state snapshot
and the reward. The reward's cost per call is watched over a sliding window: with `reward_budget_s` in the
job options, a reward whose calls stay over it is stopped early with a clear error. With `checkpoint`
({"policy": path to an earlier rung's policy.safetensors}) training continues from those weights.

With the progress strategy (`progress` in the job options, `rewardsmith.reward.progress`), each train env
adds the count bonus of the candidate's `progress` (`ProgressBonus`, one count table shared by the job's envs,
fresh in every job: a resumed rung counts from zero) and logs it as the components `progress_bonus` and
`progress_0`, ...; the learning-curve env and the evaluation worker get no bonus.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from rewardsmith.errors import RewardFileError
from rewardsmith.files import write_bytes_atomic, write_json_atomic
from rewardsmith.reward.progress import ProgressCounts, ProgressOptions, load_with_progress
from rewardsmith.run_folder.names import SUMMARY_FILE, WEIGHTS_FILE
from rewardsmith.workers.backends import load_backend, resolve_backend
from rewardsmith.workers.backends import sb3 as _default  # noqa: F401 - the warm fork server imports it once
from rewardsmith.workers.backends.base import LateProgress, LateReward, TrainLog, TrainRequest, make_reward_env
from rewardsmith.workers.job import WorkerJob

__all__ = ["LateProgress", "LateReward", "make_reward_env", "run_train_job"]


def run_train_job(job: WorkerJob) -> dict[str, Any]:
    """Train one reward (or a baseline) with the job's backend and write the policy and the summary; returns
    the summary."""
    from rewardsmith.workers.main import enter_sandbox, load_job_reward, read_job_reward

    started = time.perf_counter()
    spec = job.task()
    timesteps = job.timesteps or spec.train.timesteps
    source = read_job_reward(job) if job.reward_source == "candidate" else ""
    budget = job.options.get("reward_budget_s")
    reward = LateReward(float(budget) if budget else None)
    progress_options = ProgressOptions.from_job(job.options) if job.reward_source == "candidate" else None
    progress = LateProgress(float(budget) if budget else None)
    checkpoint, done_before = _checkpoint(job)
    request = TrainRequest(
        job=job,
        spec=spec,
        timesteps=timesteps,
        reward=reward,
        log=TrainLog(job.out_dir, timesteps, started),
        progress=progress,
        counts=ProgressCounts(progress_options) if progress_options else None,
        checkpoint=checkpoint,
        resume_timesteps=done_before,
        hyperparams={**spec.train.hyperparams, **job.options.get("hyperparams", {})},
    )
    backend_name = resolve_backend(job.options.get("backend"), spec, job.reward_source, timesteps)
    backend = load_backend(backend_name)
    phases = Phases(started)
    backend.prepare(request)
    phases.done("prepare")
    # before the reward's code runs and before any logger thread starts
    layers = enter_sandbox(job, gpu=backend.holds_gpu)
    if progress_options is not None:
        reward.fn, progress.fn = load_with_progress(source, filename=str(job.reward_path), gate=job.ast_gate)
        if progress.fn is None:
            raise RewardFileError(f"{job.reward_path}: the progress strategy is on but it defines no `progress(state)`")
    elif job.reward_source == "candidate":
        reward.fn, reward.source = load_job_reward(job, source), source
    phases.done("sandbox")
    backend.check()  # checks the reward contract once before training
    if request.counts is not None:
        request.counts.counts.clear()  # the check's visits are not training's
    reward.watch = progress.watch = True
    phases.done("check")
    outcome = backend.learn()
    phases.done("learn")
    write_bytes_atomic(job.out_dir / WEIGHTS_FILE, outcome.weights)
    summary = {
        "status": "ok",
        "timesteps": outcome.timesteps,
        "wall_s": round(time.perf_counter() - started, 3),
        "cpu_s": round(time.process_time(), 3),  # this process's CPU seconds (a forked worker's count from its fork)
        "algo": spec.train.algo,
        "backend": backend_name,
        "n_envs": request.n_envs,
        "seed": job.seed,
        "device": outcome.device,
        "device_requested": job.device,
        "reward_source": job.reward_source,
        "task": spec.name,
        "sandbox": layers,
        **outcome.summary,
        "phases_s": phases.seconds,
    }
    write_json_atomic(job.out_dir / SUMMARY_FILE, summary)
    return summary


class Phases:
    """Wall seconds of the worker's phases, each from the end of the one before (`summary.json`'s `phases_s`:
    prepare, sandbox, check, learn); a backend may report parts of learn beside it (SB3: `learning_curve_s`)."""

    def __init__(self, started: float) -> None:
        self.seconds: dict[str, float] = {}
        self._last = started

    def done(self, name: str) -> None:
        """Close the phase `name` now."""
        now = time.perf_counter()
        self.seconds[name] = round(now - self._last, 3)
        self._last = now


def _checkpoint(job: WorkerJob) -> tuple[Path | None, int]:
    """The weights of an earlier rung of the same candidate (`continue_from`: a `policy.safetensors`, or an
    SB3 `.zip` of which only `policy.pth` is read, with `torch.load(weights_only=True)`, re-saved as
    safetensors; relative to the job's folder), which the backend loads strictly as the evaluation worker does,
    and the env steps they were trained for (`resume_timesteps`); (None, 0) without a checkpoint. The optimizer
    state and SAC's replay buffer start afresh."""
    name = job.options.get("continue_from")
    if not name:
        return None, 0
    path = job.out_dir / str(name)
    path = path if path.suffix != ".zip" else _zip_weights(path, job.out_dir)
    return path, int(job.options.get("resume_timesteps", 0))


def _zip_weights(path: Path, folder: Path) -> Path:
    """The `policy.pth` state dict of an SB3 model zip, re-saved as safetensors beside it (no pickle is run)."""
    import io
    import zipfile

    import torch

    from rewardsmith.workers.evaluate import MAX_WEIGHTS_BYTES

    try:
        with zipfile.ZipFile(path) as archive:
            info = archive.getinfo("policy.pth")
            if info.file_size > MAX_WEIGHTS_BYTES:
                raise RewardFileError(f"{path.name}: policy.pth is over {MAX_WEIGHTS_BYTES >> 20} MiB")
            state = torch.load(io.BytesIO(archive.read(info)), map_location="cpu", weights_only=True)
    except (OSError, KeyError, zipfile.BadZipFile, RuntimeError, ValueError) as e:
        raise RewardFileError(f"{path.name}: not a readable checkpoint ({e})") from None
    if not isinstance(state, dict) or not all(isinstance(v, torch.Tensor) for v in state.values()):
        raise RewardFileError(f"{path.name}: policy.pth is not a state dict of tensors")
    from safetensors.torch import save

    out = folder / f".checkpoint.{WEIGHTS_FILE}"
    write_bytes_atomic(out, save({str(k): v.contiguous() for k, v in state.items()}))
    return out
