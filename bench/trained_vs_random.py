"""Does a task's search budget tell a trained policy from a random one, and a good reward from weak ones? Issue 12's
proof and issue 28's bench, over any number of tasks, built on `rewardsmith calibrate`.

For each task, the hand-written example reward (`envs/examples/<task>.py`) trains a policy on each seed in a
sandboxed training worker, at the first halving rung and at the search budget; the evaluation worker (which never
loads reward code) plays it on fresh seeds, and plays uniform random actions beside it. `--weak alive,effort`
adds the generated weak references: that is `rewardsmith calibrate` over every task named (`--all`: every shipped
task, cheapest first). Printed per task as it finishes, then one table: trusted fitness, mean ± se, and the gaps
in standard errors (Welch).

    REWARDSMITH_ALLOW_UID0=1 .venv/bin/python bench/trained_vs_random.py --tasks shadowhand-block-rotate-z \
        --timesteps 50000 --seeds 2 [--weak alive,effort] [--workers 2] [--out /tmp/tvr]

`--timesteps` defaults to each spec's search budget (`train.timesteps`); `--reward` replaces the example for
every task named. Each task's calibration lives in `<out>/<task>/` and resumes training by training, so a long
run cut short keeps what it measured; `--write-spec` records each finished one in its spec.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from rewardsmith.cli.calibrate import WEAK_CHOICES, calibrate_and_print, print_report
from rewardsmith.cost import default_cost
from rewardsmith.search.calibration import CalibrationReport, write_spec_calibration
from rewardsmith.task import ENVS_DIR, list_tasks, load_task


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    which = parser.add_mutually_exclusive_group(required=True)
    which.add_argument("--tasks", nargs="+")
    which.add_argument("--all", action="store_true", help="every shipped task, cheapest default run first")
    parser.add_argument("--reward", type=Path, default=None, help="default: envs/examples/<task>.py")
    parser.add_argument("--timesteps", type=int, default=None, help="default: the spec's train.timesteps")
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--episodes", type=int, default=None, help="evaluation episodes per seed (default: spec's)")
    parser.add_argument("--weak", default="", help=f"weak references, comma-separated: {', '.join(WEAK_CHOICES)}")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--write-spec", action="store_true", help="record each calibration in its spec")
    parser.add_argument("--out", type=Path, default=Path("/tmp/rewardsmith-trained-vs-random"))
    args = parser.parse_args()
    weak = tuple(k.strip() for k in args.weak.split(",") if k.strip())
    if set(weak) - set(WEAK_CHOICES):
        parser.error(f"--weak takes {', '.join(WEAK_CHOICES)}")
    if args.write_spec and not weak:
        parser.error("--write-spec records a calibration: it needs --weak (good vs random alone is not one)")
    specs = sorted(list_tasks(ENVS_DIR), key=lambda s: default_cost(s)[1]) if args.all else []
    specs += [load_task(task) for task in args.tasks or []]
    reports: list[CalibrationReport] = []
    for spec in specs:
        good = args.reward or spec.example_reward
        if good is None:
            raise SystemExit(f"{spec.name}: no example reward; name one with --reward")
        report = calibrate_and_print(
            spec,
            Path(good),
            args.out / spec.name,
            seeds=args.seeds,
            episodes=args.episodes,
            budget=args.timesteps,
            up_to=1.0,
            weak=weak,
            workers=args.workers,
        )
        if args.write_spec and spec.source is not None:
            write_spec_calibration(spec.source, report.spec_record())
        reports.append(report)
    print()
    for report in reports:
        print_report(report)


if __name__ == "__main__":
    main()
