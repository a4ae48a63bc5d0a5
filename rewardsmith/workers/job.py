"""The job a parent hands to a sandboxed worker, and the one table of worker modes.

A mode is one entry in `MODES`: the function the worker runs, the files it (re)writes in its folder
(every other file there is the parent's and protected), the job options that name extra input
files (shipped with the job to a Ray node), its executor lane and its folder quota. Everything the code
knows about a mode is here. Adding a mode means adding a module named after it with its entry function
and one line here.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field, field_validator

from rewardsmith.run_folder.names import REPLAY_FILE, TB_DIR
from rewardsmith.run_folder.records import (
    EPISODES_FILE,
    EVALUATION_FILE,
    FRAMES_FILE,
    METRICS_FILE,
    MODEL_FILE,
    SANDBOX_FILE,
    SCREEN_FILE,
    SMOKE_FILE,
    SUMMARY_FILE,
    TRAJECTORIES_FILE,
    WEIGHTS_FILE,
)
from rewardsmith.sandbox.lockdown import SandboxSettings
from rewardsmith.task import TaskSpec, read_task


@dataclass(frozen=True)
class Mode:
    """One kind of worker job."""

    entry: str
    """`module:function` the worker runs with the job."""
    outputs: tuple[str, ...]
    """What the worker (re)writes in its folder; a folder name covers everything below it."""
    input_options: tuple[str, ...] = ()
    """Job options holding {label: path} of extra files the worker reads (shipped to Ray nodes)."""
    quick: bool = False
    """A short check or measurement that decides what trains next: it runs in the executors' quick lane, so it
    never queues behind hour-long trainings."""
    folder_mb: int | None = None
    """The folder quota (MiB) of a mode that writes only small reports, below `SandboxSettings.folder_mb`."""


MODES: dict[str, Mode] = {
    "train": Mode(
        "rewardsmith.workers.train:run_train_job",
        (METRICS_FILE, SUMMARY_FILE, MODEL_FILE, WEIGHTS_FILE, f".checkpoint.{WEIGHTS_FILE}", TB_DIR, SANDBOX_FILE),
    ),
    "evaluate": Mode(
        "rewardsmith.workers.evaluate:run_evaluate_job",
        (EVALUATION_FILE, EPISODES_FILE, TRAJECTORIES_FILE, SUMMARY_FILE, SANDBOX_FILE),
        input_options=("weights",),
        quick=True,
    ),
    "critic": Mode(
        "rewardsmith.workers.critic:run_critic_job", (SMOKE_FILE, SUMMARY_FILE, SANDBOX_FILE), quick=True, folder_mb=64
    ),
    "screen": Mode(
        "rewardsmith.workers.screen:run_screen_job",
        (SCREEN_FILE, SUMMARY_FILE, SANDBOX_FILE),
        input_options=("trajectories",),
        quick=True,
        folder_mb=64,
    ),
    "replay": Mode(
        "rewardsmith.workers.replay:run_replay_job",
        (REPLAY_FILE, SUMMARY_FILE, SANDBOX_FILE),
        input_options=("trajectories",),
        quick=True,
    ),
    "video": Mode("rewardsmith.workers.video:run_video_job", (FRAMES_FILE, SANDBOX_FILE)),
}


class WorkerJob(BaseModel):
    """Everything a worker needs; serialised to `job.json` in the folder it may write to."""

    mode: str = Field("train", description="A key of `MODES`.")
    task_path: Path = Field(description="The task spec file (the worker re-reads and re-validates it).")
    reward_path: Path | None = Field(None, description="The reward file; None for the native/sparse baselines.")
    reward_source: Literal["candidate", "native", "sparse"] = "candidate"
    out_dir: Path = Field(description="The only folder the worker may write to.")
    timesteps: int | None = Field(None, description="Override the spec's training budget.")
    seed: int = 0
    device: str = "cpu"
    sandbox: SandboxSettings = Field(default_factory=SandboxSettings)
    ast_gate: bool = Field(True, description="Test-only switch: False bypasses the AST gate to prove the OS layers.")
    options: dict[str, Any] = Field(default_factory=dict, description="Mode-specific settings.")

    @field_validator("mode")
    @classmethod
    def _known_mode(cls, mode: str) -> str:
        if mode not in MODES:
            raise ValueError(f"unknown worker mode {mode!r}; the modes are {', '.join(MODES)}")
        return mode

    @property
    def outputs(self) -> tuple[str, ...]:
        """What this job's worker may write."""
        return MODES[self.mode].outputs

    def task(self) -> TaskSpec:
        """The validated task spec."""
        return read_task(self.task_path)


def lane(job: WorkerJob) -> str:
    """The executor lane of a job: "quick" for the cheap checks (a `quick` mode of `MODES`), else "train"."""
    return "quick" if MODES[job.mode].quick else "train"
