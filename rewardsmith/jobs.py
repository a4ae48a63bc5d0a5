"""The job file a parent hands to a sandboxed worker: what to run, on which task, writing where."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from rewardsmith.sandbox.lockdown import SandboxSettings
from rewardsmith.task import TaskSpec, read_task

JOB_FILE = "job.json"
ERROR_FILE = "error.json"
SUMMARY_FILE = "summary.json"
METRICS_FILE = "metrics.jsonl"
EPISODES_FILE = "eval_episodes.jsonl"
HEARTBEAT_FILE = "heartbeat"
TRAJECTORIES_FILE = "trajectories.npz"
MODE_OUTPUTS = {
    "train": (METRICS_FILE, EPISODES_FILE, SUMMARY_FILE, "model.zip", "tb", "sandbox.json", TRAJECTORIES_FILE),
    "critic": ("smoke.json", SUMMARY_FILE, "sandbox.json"),
    "screen": ("screen.json", SUMMARY_FILE, "sandbox.json"),
    "video": ("frames.npy", "sandbox.json"),
}
"""What each worker mode (re)writes in its folder; every other file there is the parent's and protected."""


class WorkerJob(BaseModel):
    """Everything a worker needs; serialised to `job.json` in the folder it may write to."""

    mode: Literal["train", "critic", "screen", "video"] = "train"
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

    def task(self) -> TaskSpec:
        """The validated task spec."""
        return read_task(self.task_path)
