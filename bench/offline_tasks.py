"""Does the offline default work on every task? One real 1-iteration run per task with the built-in model.

For each task, sequentially, in its own run folder under a temporary directory:
`rewardsmith run TASK --model local --iterations 1 --samples 2 --timesteps 4096 --final-seeds 0 --workers 1`,
then one row from the run folder: candidates designed, accepted by the critic, trained, best search fitness,
wall seconds, and the first rejection or failure reason when nothing trained. Exits 1 if any task trained
nothing. Minutes per task: a benchmark, not a test.

Run: `.venv/bin/python bench/offline_tasks.py [--tasks original|all|NAME,NAME] [--keep DIR]`.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from rewardsmith.errors import RunFolderError
from rewardsmith.views.run_view import RunView, read_run

ROOT = Path(__file__).resolve().parents[1]
ORIGINAL = [n for n in (ROOT / "envs" / "starter.txt").read_text().splitlines() if n and not n.startswith("#")]
"""The 11 MuJoCo specs the project shipped first (commit 1293571), before the other families."""


def all_tasks() -> list[str]:
    """Every shipped spec in envs/."""
    return sorted(p.stem for p in (ROOT / "envs").glob("*.toml"))


def run_task(task: str, out: Path, args: argparse.Namespace) -> tuple[int, float, str]:
    """One offline run of `task` into `out`: (exit code, wall seconds, last lines of its output)."""
    command = ["nice", "-n", "10", str(Path(sys.executable).with_name("rewardsmith")), "run", task]
    command += ["--model", "local", "--iterations", "1", "--samples", str(args.samples)]
    command += ["--timesteps", str(args.timesteps), "--final-seeds", "0", "--workers", "1", "--out", str(out)]
    env = dict(os.environ)
    if os.geteuid() == 0:
        env["REWARDSMITH_ALLOW_UID0"] = "1"
    start = time.monotonic()
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=args.timeout, check=False)
    tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-3:])
    return done.returncode, time.monotonic() - start, tail


def first_reason(view: RunView) -> str:
    """Why the first candidate that did not train did not: the loop's reason, else the critic's first finding."""
    for c in view.candidates:
        if c.status == "trained":
            continue
        if c.note:
            return c.note
        if c.findings:
            return c.findings[0].message
    return ""


def row(task: str, out: Path, code: int, wall: float, tail: str) -> tuple[list[str], bool]:
    """The table row of one task and whether it trained at least one candidate."""
    try:
        view = read_run(out)
    except RunFolderError as e:
        return [task, "-", "-", "-", "-", f"{wall:.0f}", f"exit {code}: {e} / {tail}"], False
    cands = view.candidates
    accepted = sum(1 for c in cands if c.verdict == "accepted")
    trained = [c for c in cands if c.status == "trained"]
    fits = [c.fitness for c in trained if c.fitness is not None]
    best = f"{max(fits):.4g}" if fits else "-"
    why = "" if trained else (first_reason(view) or f"exit {code}: {tail}")
    return [task, str(len(cands)), str(accepted), str(len(trained)), best, f"{wall:.0f}", why[:160]], bool(trained)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", default="original", help="original (the first 11 specs), all, or NAME,NAME")
    parser.add_argument("--samples", type=int, default=2)
    parser.add_argument("--timesteps", type=int, default=4096)
    parser.add_argument("--timeout", type=float, default=1800, help="seconds per task before it counts as failed")
    parser.add_argument("--keep", type=Path, help="keep the run folders here instead of a temporary directory")
    args = parser.parse_args()
    tasks = {"original": ORIGINAL, "all": all_tasks()}.get(args.tasks) or args.tasks.split(",")
    head = ["task", "designed", "accepted", "trained", "best fitness", "wall s", "first reason (if none trained)"]
    print("offline model: built-in local (fills a template from the task's own names)", flush=True)
    print(" | ".join(head), flush=True)
    failed = []
    with tempfile.TemporaryDirectory(prefix="offline-tasks-") as tmp:
        root = args.keep or Path(tmp)
        for task in tasks:
            out = root / task
            try:
                code, wall, tail = run_task(task, out, args)
            except subprocess.TimeoutExpired:
                code, wall, tail = -1, args.timeout, "timed out"
            cells, ok = row(task, out, code, wall, tail)
            print(" | ".join(cells), flush=True)
            if not ok:
                failed.append(task)
    print(f"{len(tasks) - len(failed)}/{len(tasks)} tasks trained at least one candidate", flush=True)
    if failed:
        print("nothing trained: " + ", ".join(failed), flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
