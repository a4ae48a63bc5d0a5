"""Does a task's trusted scorer tell a trained policy from a random one? Issue 12's proof, per family.

For each task, the hand-written example reward (`envs/examples/<task>.py`) trains a policy on each seed in a
sandboxed training worker; the evaluation worker (which never loads reward code) then plays it on fresh seeds,
and plays uniform random actions on as many fresh seeds. Printed side by side, per task: the fitness with its
standard error, the success rate, and the gap between trained and random in standard errors (Welch).

    REWARDSMITH_ALLOW_UID0=1 .venv/bin/python bench/trained_vs_random.py --tasks shadowhand-block-rotate-z \
        --timesteps 50000 --seeds 2 --episodes 20 [--workers 2] [--out /tmp/tvr]

`--timesteps` defaults to each spec's search budget (`train.timesteps`); `--reward` replaces the example for
every task named. Each training job's wall limit is raised with its budget (SAC on the hand tasks trains at
~50 steps/s on a laptop core), and every finished task is appended to `<out>/rows.jsonl`, so a long run cut short
keeps what it measured.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from rewardsmith.search.calibration import gap_in_se, mean_se
from rewardsmith.search.training import evaluate_policy, train_and_evaluate
from rewardsmith.task import ENVS_DIR, load_task
from rewardsmith.workers.executor import LocalExecutor


def measure(task: str, reward: Path, timesteps: int, seeds: int, episodes: int, executor, out: Path) -> dict:
    """Train `reward` on `seeds` seeds and play a random policy; every episode's trusted fitness and success."""
    spec = load_task(task)
    assert spec.source is not None
    started = time.monotonic()

    def one(seed: int) -> dict:
        folder = out / task / f"seed_{seed}"
        folder.mkdir(parents=True, exist_ok=True)
        result, evaluation = train_and_evaluate(
            spec.source,
            reward,
            folder,
            timesteps=timesteps,
            seed=seed,
            eval_episodes=episodes,
            executor=executor,
            options={"timeout_s": 600 + timesteps / 10},
        )
        if evaluation is None:
            raise SystemExit(f"{task} seed {seed}: {result.error} (log: {folder / 'worker.log'})")
        return {"fitness": evaluation.fitness, "success": evaluation.success, "wall_s": result.wall_s}

    with ThreadPoolExecutor(max_workers=max(1, seeds)) as pool:
        trained = list(pool.map(one, range(seeds)))
    random_dir = out / task / "random"
    random_dir.mkdir(parents=True, exist_ok=True)
    result, evaluation = evaluate_policy(
        spec.source, random_dir, episodes=episodes * seeds, executor=executor, random_policy=True
    )
    if evaluation is None:
        raise SystemExit(f"{task} random policy: {result.error}")
    return {
        "task": task,
        "reward": str(reward),
        "algo": spec.train.algo,
        "timesteps": timesteps,
        "seeds": seeds,
        "trained": {
            "fitness": [f for t in trained for f in t["fitness"]],
            "success": [s for t in trained for s in t["success"]],
            "per_seed": [statistics.fmean(t["fitness"]) for t in trained],
            "train_wall_s": [round(t["wall_s"], 1) for t in trained],
        },
        "random": {"fitness": list(evaluation.fitness), "success": list(evaluation.success)},
        "wall_s": round(time.monotonic() - started, 1),
    }


def table(rows: list[dict]) -> str:
    """The side-by-side table: one line per task and policy."""
    lines = [
        f"{'task':28} {'policy':22} {'episodes':>8} {'fitness (mean ± se)':>22} {'success':>8} {'gap':>8}  per seed",
    ]
    for row in rows:
        trained, random = row["trained"], row["random"]
        gap = gap_in_se(trained["fitness"], random["fitness"])
        for name, part in ((f"{row['algo']} {row['timesteps']:,} steps", trained), ("random actions", random)):
            m, se = mean_se(part["fitness"])
            rate = sum(part["success"]) / len(part["success"])
            seeds = " ".join(f"{f:.3g}" for f in part.get("per_seed", []))
            shown_gap = f"{gap:+.1f} se" if part is trained else ""
            lines.append(
                f"{row['task']:28} {name:22} {len(part['fitness']):>8} {f'{m:.4g} ± {se:.2g}':>22} "
                f"{rate:>8.0%} {shown_gap:>8}  {seeds}"
            )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tasks", nargs="+", required=True)
    parser.add_argument("--reward", type=Path, default=None, help="default: envs/examples/<task>.py")
    parser.add_argument("--timesteps", type=int, default=None, help="default: the spec's train.timesteps")
    parser.add_argument("--seeds", type=int, default=2)
    parser.add_argument("--episodes", type=int, default=20, help="evaluation episodes per seed")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", type=Path, default=Path("/tmp/rewardsmith-trained-vs-random"))
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    executor = LocalExecutor(args.workers)
    rows = []
    try:
        for task in args.tasks:
            reward = args.reward or ENVS_DIR / "examples" / f"{task.replace('-', '_')}.py"
            steps = args.timesteps or load_task(task).train.timesteps
            row = measure(task, reward, steps, args.seeds, args.episodes, executor, args.out)
            with (args.out / "rows.jsonl").open("a") as f:
                f.write(json.dumps(row) + "\n")
            rows.append(row)
            print(table([row]), flush=True)
    finally:
        executor.shutdown()
    print()
    print(table(rows))


if __name__ == "__main__":
    main()
