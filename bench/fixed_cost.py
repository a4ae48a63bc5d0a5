"""What a short job costs beyond bare PPO for the same env steps, side by side (issue 24: goal <= 1.2x).

One "job" is what the search pays per candidate and rung (`search.training.train_and_evaluate`): the sandboxed
training worker (the task's example reward file, the learning-curve episodes, the saved model) and then the
separate evaluation worker on its weights. "Bare" is SB3 PPO in this process at the spec's `[train]` settings
(its `n_envs` in-process envs, hyperparameters, network) on the task's plain env with its native reward, for the
same steps: no reward file, no sandbox, no evaluation. Each repetition runs both, alternating which goes first,
and prints wall seconds and CPU seconds of each (the job's CPU: its two workers' own, from their summaries,
plus this process's share; a fork server's one-off imports are not in it), and the job's phases. At the end:
the medians and the ratios job / bare. CPU seconds are the figure that other load on a shared machine disturbs
least. With `--cold` the job also runs with cold workers (REWARDSMITH_WARM_WORKERS=0: a fresh `python -I` per
worker, imports and all).

    REWARDSMITH_ALLOW_UID0=1 .venv/bin/python bench/fixed_cost.py [--task hopper-hop] [--steps 16384] [--reps 3]
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

from rewardsmith.files import read_json  # noqa: E402
from rewardsmith.run_folder.names import EVAL_DIR  # noqa: E402
from rewardsmith.run_folder.records import SUMMARY_FILE  # noqa: E402
from rewardsmith.sandbox import forkserver  # noqa: E402
from rewardsmith.search.training import train_and_evaluate  # noqa: E402
from rewardsmith.task import load_task, make_env  # noqa: E402
from rewardsmith.workers.executor import make_executor  # noqa: E402

EXAMPLES = ROOT / "envs" / "examples"


def one_job(task: str, steps: int, episodes: int, warm: bool, folder: Path) -> dict:
    """Wall and CPU seconds of one train-then-evaluate job, and the training worker's phases."""
    os.environ[forkserver.ENV_SWITCH] = "1" if warm else "0"
    wall, cpu = time.perf_counter(), time.process_time()
    result, evaluation = train_and_evaluate(
        ROOT / "envs" / f"{task}.toml",
        EXAMPLES / f"{task.replace('-', '_')}.py",
        folder,
        timesteps=steps,
        seed=1,
        eval_episodes=episodes,
        executor=make_executor("local", 1),
    )
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    if evaluation is None:
        raise SystemExit(f"the job failed: {result.error}")
    train = read_json(folder / SUMMARY_FILE) or {}
    evaluate = read_json(folder / EVAL_DIR / SUMMARY_FILE) or {}
    phases = dict(train.get("phases_s") or {})
    phases["learning curve"] = train.get("learning_curve_s", 0.0)
    phases["evaluate cpu"] = evaluate.get("cpu_s", 0.0)
    return {"wall": wall, "cpu": cpu + train.get("cpu_s", 0.0) + evaluate.get("cpu_s", 0.0), "phases": phases}


def bare(task: str, steps: int) -> dict:
    """Wall and CPU seconds of SB3 PPO at the spec's settings on the plain env (native reward), in this process."""
    import torch
    from stable_baselines3 import PPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    torch.set_num_threads(1)
    spec = load_task(task)
    wall, cpu = time.perf_counter(), time.process_time()
    env = DummyVecEnv([lambda: make_env(spec)] * spec.train.n_envs)
    policy_kwargs = spec.train.sb3_policy_kwargs() or None
    model = PPO("MlpPolicy", env, seed=1, verbose=0, policy_kwargs=policy_kwargs, **spec.train.hyperparams)
    model.learn(steps)
    return {"wall": time.perf_counter() - wall, "cpu": time.process_time() - cpu}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--task", default="hopper-hop")
    parser.add_argument("--steps", type=int, default=16_384)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--episodes", type=int, default=5, help="evaluation episodes per job")
    parser.add_argument("--cold", action="store_true", help="also the job with cold workers")
    args = parser.parse_args(argv)
    if load_task(args.task).train.algo != "PPO":
        raise SystemExit(f"{args.task} does not train PPO; bare PPO is the yardstick here")
    variants = ["bare", "warm", *(["cold"] if args.cold else [])]
    runs: dict[str, list[dict]] = {v: [] for v in variants}
    print(
        f"{os.uname().nodename}: {os.cpu_count()} cores, load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}"
    )
    with tempfile.TemporaryDirectory(prefix="rewardsmith-fixed-") as tmp:
        one_job(args.task, 256, 1, True, Path(tmp) / "start")  # the server starts once, outside the timings
        bare(args.task, 256)  # this process's own imports, outside the timings
        print(f"task {args.task}, {args.steps} steps, {args.episodes} evaluation episodes per job")
        for rep in range(args.reps):
            order = variants if rep % 2 == 0 else variants[::-1]
            for variant in order:
                folder = Path(tmp) / f"{rep}-{variant}"
                run = bare(args.task, args.steps) if variant == "bare" else None
                run = run or one_job(args.task, args.steps, args.episodes, variant == "warm", folder)
                runs[variant].append(run)
            line = "  ".join(f"{v} {runs[v][-1]['wall']:6.2f} s wall {runs[v][-1]['cpu']:6.2f} s cpu" for v in variants)
            phases = "  ".join(f"{k} {float(s):.2f}" for k, s in runs["warm"][-1]["phases"].items())
            print(f"rep {rep + 1}: {line}\n        warm job's phases (s): {phases}", flush=True)
    print()
    base = {clock: statistics.median(r[clock] for r in runs["bare"]) for clock in ("wall", "cpu")}
    for variant in variants:
        cells = []
        for clock in ("wall", "cpu"):
            median = statistics.median(r[clock] for r in runs[variant])
            cells.append(f"{clock} {median:6.2f} s ({median / base[clock]:.2f}x bare)")
        print(f"{variant:5} median  " + "   ".join(cells))
    print(f"goal: the warm job <= 1.2x bare; load average now {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
