"""Adam's `foreach` form against its `fused` form (what the training worker takes), side by side in one process.

    REWARDSMITH_ALLOW_UID0=1 .venv/bin/python bench/adam_form.py --tasks hopper-hop halfcheetah-run fetch-reach

Per task: the training worker's learner (`build_model`: SB3's PPO, or `LeanSAC`) at the spec's settings, envs and
network with the task's example reward through `ApplyReward`, built and trained once per form per repetition,
`--reps` times, alternating which form goes first: PPO for `--ppo-steps` env steps from scratch, SAC for
`--sac-steps` after 300 steps of warm-up (`learning_starts` 200). Prints CPU milliseconds per env step (this
process's `time.process_time`, torch on one thread, so other work on the machine disturbs it little) and the
ratio foreach / fused. The two forms do not train the same weights bit for bit (float rounding), so this bench
says only how fast; whether they learn alike is `bench/equal_learning.py --against foreach-adam`.
"""

from __future__ import annotations

import argparse
import time

from throughput import alternating, reward_for

from rewardsmith.reward.wrappers import ApplyReward
from rewardsmith.task import load_task, make_env
from rewardsmith.workers.backends.sb3 import build_model, in_process_envs
from rewardsmith.workers.lean_torch import lean_torch

FORMS = ("foreach", "fused")


def cpu_seconds(spec, reward_fn, adam: str, steps: int) -> float:
    """CPU seconds of `steps` env steps of training with Adam in the `adam` form (after SAC's warm-up)."""
    envs = in_process_envs(
        [lambda: ApplyReward(make_env(spec), reward_fn=reward_fn, source="candidate")] * spec.train.n_envs
    )
    sac = spec.train.algo == "SAC"
    hyperparams = {**spec.train.hyperparams, "learning_starts": 200} if sac else None
    model = build_model(spec, envs, 3, hyperparams=hyperparams, adam=adam)
    if sac:
        model.learn(300)
    started = time.process_time()
    model.learn(steps, reset_num_timesteps=not sac)
    return time.process_time() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--tasks", nargs="+", default=["hopper-hop", "halfcheetah-run", "fetch-reach", "metaworld-reach"]
    )
    parser.add_argument("--ppo-steps", type=int, default=4096)
    parser.add_argument("--sac-steps", type=int, default=500)
    parser.add_argument("--reps", type=int, default=4)
    args = parser.parse_args()
    lean_torch()
    print(f"{'task':<28} {'algo':<5} {'foreach ms/step':>16} {'fused ms/step':>14} {'ratio':>6}")
    for task in args.tasks:
        spec = load_task(task)
        reward_fn = reward_for(task.replace("-", "_") + ".py")
        steps = args.sac_steps if spec.train.algo == "SAC" else args.ppo_steps
        seconds = dict.fromkeys(FORMS, 0.0)
        for adam in alternating(FORMS, args.reps):
            seconds[adam] += cpu_seconds(spec, reward_fn, adam, steps)
        per_step = {adam: 1000 * s / (steps * args.reps) for adam, s in seconds.items()}
        print(
            f"{task:<28} {spec.train.algo:<5} {per_step['foreach']:>16.3f} {per_step['fused']:>14.3f} "
            f"{per_step['foreach'] / per_step['fused']:>6.3f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
