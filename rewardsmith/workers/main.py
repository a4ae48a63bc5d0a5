"""Entry point of sandboxed worker processes: `python -I -m rewardsmith.workers.main MODE JOB.json`.

Started clean by `rewardsmith.sandbox.launch` (no secrets, new session). Each mode builds what it
needs, loads the reward through the AST gate, warms up, then calls `enter_sandbox` before running
untrusted code for real. Results leave only through files in the job's `out_dir`; a failure is
written to `error.json` as {"kind", "message"} and the exit code is non-zero.
"""

from __future__ import annotations

import importlib
import os
import sys
import traceback
from pathlib import Path

from rewardsmith.errors import BackendFailed, RewardFileError, RewardsmithError, Untraceable
from rewardsmith.files import write_json_atomic
from rewardsmith.run_folder.names import ERROR_FILE
from rewardsmith.run_folder.records import SANDBOX_FILE
from rewardsmith.workers.job import MODES, WorkerJob

EXIT_REWARD_ERROR = 3
EXIT_ERROR = 4
LATE_IMPORTS = ("torch._dynamo",)
"""Imported by every training and evaluation job only when it runs, not by the modes' modules: torch's first
optimizer imports `torch._dynamo` (about 800 modules with sympy: 1.5 s of CPU per worker). Not MuJoCo (nor
Gymnasium's MuJoCo envs, which import it): it reads MUJOCO_GL once, when first imported, and the video worker
sets that per job."""
WARM_IMPORTS = tuple(dict.fromkeys([*(mode.entry.split(":")[0] for mode in MODES.values()), *LATE_IMPORTS]))
"""What the warm fork server (`rewardsmith.sandbox.forkserver`) imports once, before any fork: every mode's
module, with torch, stable-baselines3, gymnasium and MuJoCo behind them, and `LATE_IMPORTS`. Trusted code only."""


def read_job_reward(job: WorkerJob) -> str:
    """The candidate's source, read (not run) before lock-down, and checked by the AST gate unless bypassed."""
    from rewardsmith.reward.contract import read_reward_source, require_static_ok

    if job.reward_path is None:
        raise RewardFileError("this job has no reward file")
    return require_static_ok(job.reward_path) if job.ast_gate else read_reward_source(job.reward_path)


def load_job_reward(job: WorkerJob, source: str):
    """The candidate's compute_reward; call only after `enter_sandbox`, since this runs its module body."""
    from rewardsmith.sandbox.policy import load_reward

    return load_reward(source, filename=str(job.reward_path), gate=job.ast_gate)


def enter_sandbox(job: WorkerJob, *, gpu: bool = False) -> dict[str, str]:
    """Lock this process down (after imports, env construction and a warm-up call) and record the layers; `gpu`:
    the worker holds a CUDA context made before this (`SandboxSettings.gpu`)."""
    from rewardsmith.sandbox.lockdown import lock_down
    from rewardsmith.sandbox.policy import prepare_gate

    prepare_gate()  # numpy's lazy imports happen now, not through the gate's importer or after lock-down
    layers = lock_down(job.out_dir, job.sandbox.model_copy(update={"gpu": gpu}) if gpu else job.sandbox)
    write_json_atomic(job.out_dir / SANDBOX_FILE, layers)
    return layers


def main(argv: list[str] | None = None) -> int:
    """Run one job; returns the process exit code."""
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 2 or argv[0] not in MODES:
        print(f"usage: python -I -m rewardsmith.workers.main {{{'|'.join(MODES)}}} JOB.json", file=sys.stderr)
        return 2
    mode, job_path = argv
    job = WorkerJob.model_validate_json(Path(job_path).read_text(encoding="utf-8"))
    module_name, function_name = MODES[mode].entry.split(":")
    try:
        run = getattr(importlib.import_module(module_name), function_name)
        run(job)
        return 0
    except Untraceable as e:  # the MJX backend: the parent trains this reward on the CPU backend instead
        _record_error(job, "untraceable", str(e))
        return EXIT_REWARD_ERROR
    except BackendFailed as e:  # likewise, for a failure of the machine rather than the reward
        _record_error(job, "backend", str(e))
        return EXIT_ERROR
    except RewardFileError as e:
        _record_error(job, "reward", str(e))
        return EXIT_REWARD_ERROR
    except RewardsmithError as e:
        _record_error(job, "task", str(e))
        return EXIT_ERROR
    except MemoryError:
        _record_error(job, "reward", "the worker ran out of memory (the sandbox's address-space limit)")
        return EXIT_REWARD_ERROR
    except RecursionError:
        _record_error(job, "reward", "maximum recursion depth exceeded")
        return EXIT_REWARD_ERROR
    except BaseException as e:  # noqa: BLE001 - anything else from untrusted code is a candidate failure
        _record_error(job, "crash", f"{type(e).__name__}: {e}", traceback.format_exc(limit=8))
        return EXIT_ERROR


def _record_error(job: WorkerJob, kind: str, message: str, trace: str = "") -> None:
    try:
        write_json_atomic(job.out_dir / ERROR_FILE, {"kind": kind, "message": message, "traceback": trace})
    except OSError:
        print(f"{kind}: {message}", file=sys.stderr)
    sys.stderr.flush()


if __name__ == "__main__":
    code = main()
    sys.stdout.flush()
    os._exit(code)  # skip interpreter teardown: untrusted atexit hooks and finalizers never run
