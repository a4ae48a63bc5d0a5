"""Parallel training speedup: the same candidates trained through `LocalExecutor` with N workers vs 1.

Trains `--candidates` variants of `envs/examples/halfcheetah_run.py` (different effort weights) on a
copy of the halfcheetah-run spec with a small budget, through the real sandboxed worker path, once per
worker count, and prints the wall times and the speedup. Each worker uses one BLAS/torch thread, so on a
machine with N free cores the goal is a speedup near N (>= 1.8 for 2 workers).

    python bench/parallel.py                  # 4 candidates, 1 vs 2 workers
    python bench/parallel.py --timesteps 32768 --workers 4
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from rewardsmith.task import ENVS_DIR
from rewardsmith.workers.executor import LocalExecutor
from rewardsmith.workers.job import WorkerJob

EXAMPLE = ENVS_DIR / "examples" / "halfcheetah_run.py"


def write_spec(folder: Path, timesteps: int) -> Path:
    """halfcheetah-run with a bench-sized budget (small net, short evaluation), scorers beside it."""
    text = (ENVS_DIR / "halfcheetah-run.toml").read_text()
    assert 'scorer = "scorers:' in text and "[train]" in text
    spec_text = text.split("[train]")[0] + (
        '[train]\nalgo = "PPO"\n'
        f"timesteps = {timesteps}\nfinal_timesteps = {timesteps}\neval_freq = {timesteps}\neval_episodes = 1\n"
        "hyperparams = { n_steps = 1024, batch_size = 64, n_epochs = 4 }\n"
        "policy_kwargs = { net_arch = [64, 64] }\n"
    )
    (folder / "scorers.py").write_bytes((ENVS_DIR / "scorers.py").read_bytes())
    path = folder / "halfcheetah-run.toml"
    path.write_text(spec_text)
    return path


def write_rewards(folder: Path, count: int) -> list[Path]:
    """`count` hand-written variants of the example reward (effort weight 0.05, 0.1, ...)."""
    source = EXAMPLE.read_text()
    assert "-0.1 * effort" in source
    paths = []
    for k in range(count):
        path = folder / f"reward_{k}.py"
        path.write_text(source.replace("-0.1 * effort", f"-{0.05 * (k + 1):.2f} * effort"))
        paths.append(path)
    return paths


def train_all(spec: Path, rewards: list[Path], out: Path, workers: int, timesteps: int) -> tuple[float, list[float]]:
    """Wall time of training every reward with `workers` slots, and each job's own wall time."""
    executor = LocalExecutor(workers)
    started = time.perf_counter()
    futures = [
        executor.submit(
            WorkerJob(task_path=spec, reward_path=r, out_dir=out / f"w{workers}" / r.stem, timesteps=timesteps, seed=k)
        )
        for k, r in enumerate(rewards)
    ]
    results = [f.result() for f in futures]
    wall = time.perf_counter() - started
    executor.shutdown()
    failed = [r.error for r in results if not r.ok]
    if failed:
        raise SystemExit(f"training failed: {failed}")
    return wall, [r.wall_s for r in results]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--candidates", type=int, default=4)
    parser.add_argument("--workers", type=int, default=2, help="Parallel workers to compare against 1.")
    parser.add_argument("--timesteps", type=int, default=16384)
    args = parser.parse_args()
    print(
        f"{args.candidates} candidates x {args.timesteps:,} steps (halfcheetah-run, PPO, net [64, 64]); "
        f"{os.cpu_count()} cores; load average before: {os.getloadavg()[0]:.2f}"
    )
    with tempfile.TemporaryDirectory(prefix="rewardsmith-bench-") as tmp:
        folder = Path(tmp)
        spec, rewards = write_spec(folder, args.timesteps), write_rewards(folder, args.candidates)
        walls = {}
        for workers in (1, args.workers):
            cpu = os.times().children_user + os.times().children_system
            walls[workers], jobs = train_all(spec, rewards, folder, workers, args.timesteps)
            cpu = os.times().children_user + os.times().children_system - cpu
            print(
                f"workers={workers}: {walls[workers]:6.1f} s wall, {cpu:6.1f} s worker CPU, load average "
                f"{os.getloadavg()[0]:.2f}  (per job: " + ", ".join(f"{w:.1f}" for w in jobs) + " s)"
            )
    print(
        f"speedup with {args.workers} workers: {walls[1] / walls[args.workers]:.2f}x "
        f"(goal >= {0.9 * args.workers:.1f}x)"
    )


if __name__ == "__main__":
    main()
