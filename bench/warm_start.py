"""Does `--warm-start` help? One parent reward trained, then a different reward trained from scratch and from the
parent's policy, side by side on the same seeds, each measured by the trusted evaluation worker.

    .venv/bin/python bench/warm_start.py [--task inverted-double-pendulum-balance] [--parent-steps 20000]
                                         [--steps 8192] [--seeds 3]

The parent reward is the task's example (`envs/examples/`); the child reward is a plainer one written for the
same task (the kind a later iteration proposes). Prints each seed's fitness both ways and the mean difference with
its standard error.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from pathlib import Path

from rewardsmith.run_folder.records import WEIGHTS_FILE
from rewardsmith.search.training import train_and_evaluate
from rewardsmith.task import ENVS_DIR, load_task
from rewardsmith.workers.executor import LocalExecutor

CHILD = """import numpy as np


def compute_reward(state, action, next_state):
    tip = float(next_state.site("tip").pos[2])
    components = {"upright": 1.0 if tip > 1.0 else 0.0, "height": 0.5 * tip, "effort": -0.01 * float(np.sum(np.square(action)))}
    return sum(components.values()), components
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--task", default="inverted-double-pendulum-balance")
    parser.add_argument("--parent-steps", type=int, default=20000)
    parser.add_argument("--steps", type=int, default=8192)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--episodes", type=int, default=5)
    args = parser.parse_args()
    spec = load_task(args.task)
    example = ENVS_DIR / "examples" / f"{args.task.replace('-', '_')}.py"
    executor = LocalExecutor(2)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            child = root / "child.py"
            child.write_text(CHILD)
            parent_dir = root / "parent"
            result, evaluation = train_and_evaluate(
                spec.source,
                example,
                parent_dir,
                timesteps=args.parent_steps,
                seed=0,
                eval_episodes=args.episodes,
                executor=executor,
            )
            assert evaluation is not None, result.error
            print(f"parent ({example.name}, {args.parent_steps:,} steps): fitness {evaluation.fitness_mean:.4g}")
            gaps = []
            for seed in range(1, args.seeds + 1):
                fitness = {}
                for label in ("scratch", "warm"):
                    out = root / f"{label}-{seed}"
                    out.mkdir()
                    warm = None
                    if label == "warm":
                        warm = out / "warm_start.safetensors"
                        warm.write_bytes((parent_dir / WEIGHTS_FILE).read_bytes())
                    result, evaluation = train_and_evaluate(
                        spec.source,
                        child,
                        out,
                        timesteps=args.steps,
                        seed=seed,
                        eval_episodes=args.episodes,
                        executor=executor,
                        continue_from=warm,
                    )
                    assert evaluation is not None, result.error
                    fitness[label] = evaluation.fitness_mean
                gaps.append(fitness["warm"] - fitness["scratch"])
                print(
                    f"seed {seed}: child reward, {args.steps:,} steps: from scratch {fitness['scratch']:.4g}   "
                    f"warm-started {fitness['warm']:.4g}"
                )
            se = statistics.stdev(gaps) / len(gaps) ** 0.5 if len(gaps) > 1 else float("nan")
            print(f"warm - scratch: mean {statistics.mean(gaps):+.4g} ± {se:.2g} (standard error, n={len(gaps)})")
    finally:
        executor.shutdown()


if __name__ == "__main__":
    main()
