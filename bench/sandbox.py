"""What the sandbox costs: reward calls inside a locked worker, and sandboxed training throughput.

(a) Per-call cost of `generated_style_reward.py` on the same prepared HalfCheetah states, timed in a
    clean locked-down child (started by `run_worker`, all `lock_down` layers) and in this process,
    alternating; prints the median ratio locked / in-process (goal <= 1.05).
(b) PPO training throughput of the same HalfCheetah train job through `run_job`, sandboxed vs with
    `SandboxSettings(enabled=False)` (benchmark-only), alternating; prints the median ratio of
    steps/s (`timesteps / wall_s` from summary.json), sandboxed / unsandboxed (goal >= 0.97).
(c) What the separate evaluation worker adds to a candidate: a sandboxed train job of `--steps`, then the
    evaluation job on its weights (the spec's `eval_episodes`, full episodes, fresh seeds), timed side by
    side; prints the ratio evaluation / training measured at `--steps`, and at the spec's default budget
    with the training time scaled from the measured steps/s (goal <= 0.05).

Run: `.venv/bin/python bench/sandbox.py [--calls-reps 7] [--train-reps 5] [--eval-reps 3] [--steps 8192]
[--parts calls,train,eval]`.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the child runs with -I, which ignores PYTHONPATH

from rewardsmith.sandbox.lockdown import SandboxSettings, lock_down  # noqa: E402

REWARD = Path(__file__).with_name("generated_style_reward.py")
TASK = ROOT / "envs" / "halfcheetah-run.toml"
TRANSITIONS = 1000
PASSES = 20


def prepared_transitions():
    """The critic's real transitions on HalfCheetah, read once by the reward so every lazy copy is cached."""
    from rewardsmith.task import read_task
    from rewardsmith.workers.critic import collect_transitions

    transitions, _ = collect_transitions(read_task(TASK), TRANSITIONS, 200, seed=0)
    return transitions


def per_call_us(reward_fn, transitions) -> float:
    """Mean microseconds per call in the fastest of PASSES passes over every transition (the least disturbed
    by other load on the machine)."""
    for transition in transitions:  # warm-up pass: lazy numpy paths and cached state copies
        reward_fn(*transition)
    passes = []
    for _ in range(PASSES):
        started = time.perf_counter()
        for transition in transitions:
            reward_fn(*transition)
        passes.append((time.perf_counter() - started) / len(transitions) * 1e6)
    return min(passes)


def child(folder: Path) -> None:
    """In the clean child: prepare states, read the reward, lock down, then load and time it; write result.json."""
    from rewardsmith.reward.contract import require_static_ok
    from rewardsmith.sandbox.policy import load_reward

    transitions = prepared_transitions()
    source = require_static_ok(REWARD)  # before lock-down: the checkout is not readable afterwards
    layers = lock_down(folder, SandboxSettings())
    us = per_call_us(load_reward(source, filename=str(REWARD)), transitions)
    (folder / "result.json").write_text(json.dumps({"us": us, "layers": layers}))


def locked_call_us(folder: Path) -> tuple[float, dict[str, str]]:
    from rewardsmith.sandbox.launch import run_worker

    result = run_worker(
        "bench",
        folder / "job.json",
        cwd=folder,
        log_path=folder / "child.log",
        timeout_s=600,
        command=[sys.executable, "-I", str(Path(__file__).resolve()), "--child", str(folder)],
    )
    if not result.ok:
        raise SystemExit(f"locked child failed: {result.reason}\n{result.output_tail}")
    report = json.loads((folder / "result.json").read_text())
    return report["us"], report["layers"]


def bench_calls(reps: int, work: Path) -> None:
    from rewardsmith.reward.contract import require_static_ok
    from rewardsmith.sandbox.policy import load_reward

    transitions = prepared_transitions()
    reward_fn = load_reward(require_static_ok(REWARD), filename=str(REWARD))
    ratios = []
    for rep in range(reps):
        folder = work / f"calls_{rep}"
        folder.mkdir()
        if rep % 2 == 0:
            inside = per_call_us(reward_fn, transitions)
            locked, layers = locked_call_us(folder)
        else:
            locked, layers = locked_call_us(folder)
            inside = per_call_us(reward_fn, transitions)
        ratios.append(locked / inside)
        print(
            f"calls rep {rep}: in-process {inside:6.2f} us/call   locked worker {locked:6.2f} us/call   "
            f"ratio {ratios[-1]:.3f}",
            flush=True,
        )
    for name, status in layers.items():
        print(f"  layer {name}: {status}")
    print(f"median per-call ratio (locked / in-process): {statistics.median(ratios):.3f}   goal <= 1.05", flush=True)


def train_steps_per_s(sandboxed: bool, steps: int, folder: Path) -> float:
    from rewardsmith.workers.job import WorkerJob
    from rewardsmith.workers.run import run_job

    job = WorkerJob(
        mode="train",
        task_path=TASK,
        reward_path=REWARD,
        out_dir=folder,
        timesteps=steps,
        sandbox=SandboxSettings(enabled=sandboxed),
    )
    result = run_job(job)
    if not result.ok:
        raise SystemExit(f"train job failed: {result.error}")
    return result.summary["timesteps"] / result.summary["wall_s"]


def bench_training(reps: int, steps: int, work: Path) -> None:
    ratios = []
    for rep in range(reps):
        order = (True, False) if rep % 2 == 0 else (False, True)
        rate = {flag: train_steps_per_s(flag, steps, work / f"train_{rep}_{'on' if flag else 'off'}") for flag in order}
        ratios.append(rate[True] / rate[False])
        print(
            f"train rep {rep}: unsandboxed {rate[False]:6.1f} steps/s   sandboxed {rate[True]:6.1f} steps/s   "
            f"ratio {ratios[-1]:.3f}",
            flush=True,
        )
    print(f"median training ratio (sandboxed / unsandboxed): {statistics.median(ratios):.3f}   goal >= 0.97")


def bench_evaluation(reps: int, steps: int, work: Path) -> None:
    from rewardsmith.search.training import evaluate_policy
    from rewardsmith.task import read_task
    from rewardsmith.workers.executor import LocalExecutor
    from rewardsmith.workers.job import WorkerJob
    from rewardsmith.workers.run import run_job

    spec = read_task(TASK)
    default = spec.train.timesteps
    executor = LocalExecutor(1)
    measured, scaled = [], []
    try:
        for rep in range(reps):
            folder = work / f"eval_{rep}"
            started = time.perf_counter()
            result = run_job(
                WorkerJob(mode="train", task_path=TASK, reward_path=REWARD, out_dir=folder, timesteps=steps)
            )
            train_s = time.perf_counter() - started
            if not result.ok:
                raise SystemExit(f"train job failed: {result.error}")
            started = time.perf_counter()
            evaluated, evaluation = evaluate_policy(
                TASK, folder, episodes=spec.train.eval_episodes, executor=executor, trained_timesteps=steps
            )
            eval_s = time.perf_counter() - started
            if evaluation is None:
                raise SystemExit(f"evaluation job failed: {evaluated.error}")
            per_step = result.summary["wall_s"] / result.summary["timesteps"]  # the worker's own training time
            fixed = train_s - result.summary["wall_s"]  # start-up, imports, lock-down
            measured.append(eval_s / train_s)
            scaled.append(eval_s / (fixed + per_step * default))
            print(
                f"eval rep {rep}: train {train_s:6.1f} s ({steps} steps)   evaluation {eval_s:5.1f} s "
                f"({spec.train.eval_episodes} episodes, {sum(evaluation.lengths)} steps)   "
                f"ratio {measured[-1]:.3f}   at {default:,} steps {scaled[-1]:.4f}",
                flush=True,
            )
    finally:
        executor.shutdown()
    print(
        f"median evaluation / training: {statistics.median(measured):.3f} at {steps} steps, "
        f"{statistics.median(scaled):.4f} at the default budget ({default:,} steps)   goal <= 0.05"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--calls-reps", type=int, default=7)
    parser.add_argument("--train-reps", type=int, default=5)
    parser.add_argument("--eval-reps", type=int, default=3)
    parser.add_argument("--parts", default="calls,train,eval", help="which of (a) calls, (b) train, (c) eval to run")
    parser.add_argument("--steps", type=int, default=8192)
    args = parser.parse_args()
    if args.child:
        child(args.child)
        return
    with tempfile.TemporaryDirectory(prefix="rewardsmith-bench-") as tmp:
        parts = args.parts.split(",")
        if "calls" in parts:
            bench_calls(args.calls_reps, Path(tmp))
        if "train" in parts:
            bench_training(args.train_reps, args.steps, Path(tmp))
        if "eval" in parts:
            bench_evaluation(args.eval_reps, args.steps, Path(tmp))


if __name__ == "__main__":
    main()
