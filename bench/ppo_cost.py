"""PPO's training cost from a spec's own settings: measure, fit, and check the fit on specs it was not fitted on.

    python bench/ppo_cost.py                 # every shipped PPO spec (distinct env and settings), 8,192+ steps each
    python bench/ppo_cost.py --steps 4096

For each shipped PPO spec (one per distinct env and `[train]` settings) it measures, in CPU seconds of this process
(`time.process_time`, torch on one thread): the env's step through `ApplyReward` with the task's example reward on
random actions, and bare SB3 PPO with that reward at the spec's settings (its `n_envs`, `n_steps`, batch, epochs and
network). The learner's share, CPU seconds per env step less the env's, is modelled as

    policy_call / n_envs + n_epochs * (minibatch / batch_size + per_sample(widest layer))

(`rewardsmith.cost`: one policy call per vectorized step; each epoch visits every sample once, in minibatches whose
fixed cost is spread over the batch). The four constants are fitted (non-negative least squares, relative error) on
every other spec in name order and checked on the rest, whose rates they never saw; the table prints each spec's
measured and predicted steps per CPU second and their ratio, marked fit or held out, and the constants to paste into
`rewardsmith/cost.py` with the env step costs per env.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import numpy as np
import torch
from scipy.optimize import nnls
from throughput import reward_for, step_rate, train_rate  # bench/ is on sys.path when this file runs as a script

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rewardsmith.cost import learner_terms, ppo_settings  # noqa: E402
from rewardsmith.task import list_tasks  # noqa: E402


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, default=8192, help="training steps per spec (at least 4 rollouts)")
    parser.add_argument("--env-steps", type=int, default=4000, help="random-action env steps per spec")
    args = parser.parse_args()
    torch.set_num_threads(1)
    print(f"load average before: {os.getloadavg()[0]:.1f}")
    rows = []
    for spec in distinct_ppo_specs():
        example = f"{spec.name.replace('-', '_')}.py"
        reward = reward_for(example)
        n_envs, n_steps, _batch, _epochs, _width = ppo_settings(spec.train)
        steps = max(args.steps, 4 * n_envs * n_steps)
        env_rate = step_rate(spec, reward, example, args.env_steps)
        rate = train_rate(spec, reward, example, steps, n_envs=n_envs)
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


if __name__ == "__main__":
    main()
