"""A training's cost from a spec's own settings (`rewardsmith/cost.py`): measure, fit, and check the fit on specs and
trainings it was not fitted on.

    python bench/training_cost.py                 # PPO: every shipped PPO spec (distinct env and settings)
    python bench/training_cost.py --steps 4096
    python bench/training_cost.py --sac           # SAC: against the equal-learning trainings' own CPU

PPO: for each shipped PPO spec (one per distinct env and `[train]` settings) it measures, in CPU seconds of this
process (`time.process_time`, torch on one thread): the env's step through `ApplyReward` with the task's example
reward on random actions, and bare SB3 PPO with that reward at the spec's settings (its `n_envs`, `n_steps`, batch,
epochs and network). The learner's share, CPU seconds per env step less the env's, is modelled as

    policy_call / n_envs + n_epochs * (minibatch / batch_size + per_sample(widest layer))

(one policy call per vectorized step; each epoch visits every sample once, in minibatches whose fixed cost is spread
over the batch). The four constants are fitted (non-negative least squares, relative error) on every other spec in
name order and checked on the rest, whose rates they never saw; the table prints each spec's measured and predicted
steps per CPU second and their ratio, marked fit or held out, and the constants to paste into `rewardsmith/cost.py`
with the env step costs per env.

SAC (`--sac`): each SAC task's env step measured the same way, and the equal-learning trainings' own CPU in
`docs/equal_learning.json` (the training worker's, 256x256 as "old" and 128x128 as "new" for the SAC tasks of the
sixth and ninth rounds). An update's cost a + b w^2 (w the widest layer) is fitted on metaworld-push and
-pick-place and checked on the other tasks' trainings; it prints their measured and predicted rates.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

import numpy as np
import torch
from scipy.optimize import nnls
from throughput import reward_for, step_rate, train_rate  # bench/ is on sys.path when this file runs as a script

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rewardsmith.cost import learner_terms, ppo_settings, steps_per_cpu_second  # noqa: E402
from rewardsmith.task import list_tasks, load_task  # noqa: E402


def distinct_ppo_specs() -> list:
    """The shipped PPO specs with an example reward, one per distinct env id and training settings."""
    seen, specs = set(), []
    for spec in sorted(list_tasks(), key=lambda s: s.name):
        example = ROOT / "envs" / "examples" / f"{spec.name.replace('-', '_')}.py"
        key = (spec.env, tuple(ppo_settings(spec.train)))
        if spec.train.algo == "PPO" and example.is_file() and key not in seen:
            seen.add(key)
            specs.append(spec)
    return specs


def ppo(steps: int, env_steps: int) -> None:
    """Measure every distinct shipped PPO spec, fit the learner's constants on half, check them on the rest."""
    rows = []
    for spec in distinct_ppo_specs():
        example = f"{spec.name.replace('-', '_')}.py"
        reward = reward_for(example)
        n_envs, n_steps, _batch, _epochs, _width = ppo_settings(spec.train)
        env_rate = step_rate(spec, reward, example, env_steps)
        rate = train_rate(spec, reward, example, max(steps, 4 * n_envs * n_steps), n_envs=n_envs)
        rows.append((spec, env_rate, rate))
        print(f"  {spec.name}: env {env_rate:,.0f} steps/s, PPO {rate:,.0f} steps/s", flush=True)
    print(f"load average after: {os.getloadavg()[0]:.1f}")

    terms = np.array([learner_terms(spec.train) for spec, _, _ in rows])
    learner_s = np.array([1 / rate - 1 / env_rate for _, env_rate, rate in rows])
    step_s = np.array([1 / rate for _, _, rate in rows])
    fit = np.arange(len(rows)) % 2 == 0
    weights = 1 / step_s[fit]  # relative error: every spec counts alike, slow or fast
    constants, _ = nnls(terms[fit] * weights[:, None], learner_s[fit] * weights)
    print(
        "\nspec                               settings (envs x steps, batch, epochs, width)   measured  predicted  ratio"
    )
    for (spec, env_rate, rate), term, in_fit in zip(rows, terms, fit, strict=True):
        predicted = 1 / (1 / env_rate + term @ constants)
        settings = "{} x {}, {}, {}, {}".format(*ppo_settings(spec.train))
        print(
            f"{spec.name:34s} {settings:46s} {rate:8,.0f} {predicted:10,.0f} {predicted / rate:6.2f}"
            f"  {'fit' if in_fit else 'held out'}"
        )
    held = ~fit
    errors = np.array([1 / (1 / e + t @ constants) / r for (_, e, r), t in zip(rows, terms, strict=True)])
    print(
        f"\nheld out: {held.sum()} specs, predicted / measured from {errors[held].min():.2f} to {errors[held].max():.2f}"
        f" (geometric mean {np.exp(np.log(errors[held]).mean()):.2f})"
    )
    names = ("policy_call", "minibatch", "per_sample_64", "per_sample_256")
    print(
        "PPO_LEARNER_US = {" + ", ".join(f'"{n}": {c * 1e6:.0f}' for n, c in zip(names, constants, strict=True)) + "}"
    )
    print("env step us (ApplyReward, example reward): " + ", ".join(f"{s.env} {1e6 / e:.0f}" for s, e, _ in rows))


SAC_FIT = ("metaworld-push", "metaworld-pick-place")
"""The SAC tasks whose equal-learning trainings the update's cost is fitted on; the others check it."""
SAC_WIDTH = {"old": 256, "new": 128}
"""The networks of the SAC equal-learning variants (sixth and ninth rounds: 256x256 against 128x128)."""


def sac(env_steps: int) -> None:
    """Fit SAC's update cost on the `SAC_FIT` trainings and check `steps_per_cpu_second` on the other SAC tasks'."""
    rows = json.loads((ROOT / "docs" / "equal_learning.json").read_text())
    measured: dict[tuple[str, int], list[float]] = {}
    for row in rows:
        if row.get("train_cpu_s") and row["variant"] in SAC_WIDTH and load_task(row["task"]).train.algo == "SAC":
            measured.setdefault((row["task"], SAC_WIDTH[row["variant"]]), []).append(row["steps"] / row["train_cpu_s"])
    env_us = {}
    for task in sorted({task for task, _ in measured}):
        example = f"{task.replace('-', '_')}.py"
        env_us[task] = 1e6 / step_rate(load_task(task), reward_for(example), example, env_steps)
    fit = [(w, 1e6 / np.mean(r) - env_us[t]) for (t, w), r in measured.items() if t in SAC_FIT]
    b, a = np.polyfit([w**2 for w, _ in fit], [us for _, us in fit], 1)
    print(f'SAC_UPDATE_US = {{"a": {a:.0f}, "b": {b:.4f}}}  (fitted on {", ".join(SAC_FIT)})')
    print("env step us (ApplyReward, example reward): " + ", ".join(f"{t} {us:.0f}" for t, us in env_us.items()))
    print(f"\n{'task':28s} width  trainings  measured  rewardsmith.cost  ratio")
    for (task, width), rates in sorted(measured.items()):
        spec = load_task(task)
        spec = spec.model_copy(
            update={"train": spec.train.model_copy(update={"policy_kwargs": {"net_arch": [width] * 2}})}
        )
        predicted, mean = steps_per_cpu_second(spec), float(np.mean(rates))
        where = "fit" if task in SAC_FIT else "held out"
        print(f"{task:28s} {width:5d} {len(rates):10d} {mean:9.0f} {predicted:17.0f} {predicted / mean:6.2f}  {where}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, default=8192, help="PPO training steps per spec (at least 4 rollouts)")
    parser.add_argument("--env-steps", type=int, default=4000, help="random-action env steps per spec")
    parser.add_argument("--sac", action="store_true", help="SAC against the equal-learning trainings instead")
    args = parser.parse_args()
    torch.set_num_threads(1)
    print(f"load average before: {os.getloadavg()[0]:.1f}")
    if args.sac:
        sac(min(args.env_steps, 1500))
    else:
        ppo(args.steps, args.env_steps)


if __name__ == "__main__":
    main()
