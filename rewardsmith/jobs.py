"""The job file a parent hands to a sandboxed worker: what to run, on which task, writing where."""

from __future__ import annotations

import json
import os
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


class WorkerJob(BaseModel):
    """Everything a worker needs; serialised to `job.json` in the folder it may write to."""

    mode: Literal["train", "critic", "video"] = "train"
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


def write_json_atomic(path: Path, data: Any) -> None:
    """Write JSON so that readers never see a half-written file, even after a kill -9."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(data, indent=2, default=str), encoding="utf-8")
    os.replace(tmp, path)


def append_jsonl(path: Path, record: dict[str, Any]) -> None:
    """Append one JSON line (a single write, flushed)."""
    with open(path, "a", encoding="utf-8") as f:
        f.write(json.dumps(record, default=str) + "\n")


def read_jsonl(path: Path) -> tuple[list[dict[str, Any]], list[str]]:
    """Records of a JSON-lines file and a list of problems (corrupt or truncated lines are skipped)."""
    records, problems = [], []
    if not Path(path).is_file():
        return records, [f"{path}: missing"]
    for number, line in enumerate(Path(path).read_text(encoding="utf-8", errors="replace").splitlines(), 1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as e:
            problems.append(f"{path}:{number}: corrupt line skipped ({e.msg})")
            continue
        if isinstance(value, dict):
            records.append(value)
        else:
            problems.append(f"{path}:{number}: not a JSON object, skipped")
    return records, problems
