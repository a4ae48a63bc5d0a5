"""What a short job costs besides its steps: cold workers against warm (forked) ones, side by side.

One "job" is what the search pays per candidate and rung: a sandboxed training worker, then the separate
evaluation worker on its weights (`search.training.train_and_evaluate`). Each repetition runs the same job
with cold workers (REWARDSMITH_WARM_WORKERS=0: a fresh `python -I` per worker) and with warm ones (forked
from the pre-imported fork server), alternating which goes first, at a near-zero budget (the fixed cost)
and at the halving's first-rung budget. Prints per-rep wall times, the medians and the ratios warm / cold.

    REWARDSMITH_ALLOW_UID0=1 .venv/bin/python bench/fixed_cost.py [--reps 5] [--steps 8192] [--task ...]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rewardsmith.sandbox import forkserver  # noqa: E402
from rewardsmith.search.training import train_and_evaluate  # noqa: E402
from rewardsmith.workers.executor import make_executor  # noqa: E402

EXAMPLES = ROOT / "envs" / "examples"


def one_job(task: Path, reward: Path, steps: int, episodes: int, warm: bool, folder: Path) -> float:
    """Wall seconds of one train-then-evaluate job with cold or warm workers."""
    os.environ[forkserver.ENV_SWITCH] = "1" if warm else "0"
    started = time.perf_counter()
    result, evaluation = train_and_evaluate(
        task, reward, folder, timesteps=steps, seed=1, eval_episodes=episodes, executor=make_executor("local", 1)
    )
    wall = time.perf_counter() - started
    if evaluation is None:
        raise SystemExit(f"the job failed: {result.error}")
    return wall


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--steps", type=int, default=8192, help="the rung-sized budget (the first default rung)")
    parser.add_argument("--episodes", type=int, default=5, help="evaluation episodes per job")
    parser.add_argument("--task", default="inverted-double-pendulum-balance")
    args = parser.parse_args(argv)
    task = ROOT / "envs" / f"{args.task}.toml"
    reward = EXAMPLES / f"{args.task.replace('-', '_')}.py"
    with tempfile.TemporaryDirectory(prefix="rewardsmith-fixed-") as tmp:
        one_job(task, reward, 256, 1, True, Path(tmp) / "start")  # the server starts once, outside the timings
        print(f"fork server up (pid {forkserver._shared.pid if forkserver._shared else '-'}); task {args.task}")
        walls: dict[tuple[int, bool], list[float]] = {}
        for rep in range(args.reps):
            for steps in (256, args.steps):
                order = (True, False) if rep % 2 else (False, True)
                for warm in order:
                    wall = one_job(task, reward, steps, args.episodes, warm, Path(tmp) / f"{rep}-{steps}-{warm}")
                    walls.setdefault((steps, warm), []).append(wall)
            print(
                f"rep {rep + 1}: "
                + "  ".join(
                    f"{s:>5} steps {'warm' if w else 'cold'} {walls[(s, w)][-1]:5.2f} s"
                    for s in (256, args.steps)
                    for w in (False, True)
                ),
                flush=True,
            )
    print()
    for steps in (256, args.steps):
        cold, warm = statistics.median(walls[(steps, False)]), statistics.median(walls[(steps, True)])
        print(
            f"{steps:>6} steps + {args.episodes} evaluation episodes: cold {cold:6.2f} s  warm {warm:6.2f} s  "
            f"warm/cold {warm / cold:.2f}  (saved {cold - warm:.2f} s per candidate and rung)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
