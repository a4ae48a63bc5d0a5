"""SB3's SAC against `LeanSAC` (what the training worker builds), side by side in one process, per SAC task.

    REWARDSMITH_ALLOW_UID0=1 .venv/bin/python bench/lean_sac.py --tasks fetch-reach metaworld-door-open --steps 1000

Per task: both learners at the spec's settings and network with the task's example reward through
`ApplyReward` (one env, `learning_starts` 200, seed 3), each trained `--steps` env steps after 300 steps of
warm-up, `--reps` times, alternating which goes first; CPU milliseconds per env step (this process's
`time.process_time`, single-threaded torch, so that other work on the machine disturbs it little), their ratio,
and whether the last models of the two are equal bit for bit (every policy tensor and the entropy coefficient).
Each model is built and trained before the next is built, since both draw on the process's global RNGs.
"""

from __future__ import annotations

import argparse
import time

import torch
from stable_baselines3 import SAC
from stable_baselines3.common.vec_env import DummyVecEnv
from throughput import alternating, reward_for

from rewardsmith.reward.wrappers import ApplyReward
from rewardsmith.task import load_task, make_env
from rewardsmith.workers.backends.lean_sac import LeanSAC
from rewardsmith.workers.backends.sb3 import lean_policy_kwargs
from rewardsmith.workers.lean_torch import lean_torch


def timed_training(cls, spec, reward_fn, steps: int):
    """A fresh `cls` model after 300 warm-up steps, then `steps` more; the model and their CPU seconds."""
    env = DummyVecEnv([lambda: ApplyReward(make_env(spec), reward_fn=reward_fn, source="candidate")])
    hyperparams = {**spec.train.hyperparams, "learning_starts": 200}
    model = cls("MlpPolicy", env, seed=3, verbose=0, policy_kwargs=lean_policy_kwargs(spec), **hyperparams)
    model.learn(300)
    started = time.process_time()
    model.learn(steps, reset_num_timesteps=False)
    return model, time.process_time() - started


def same_weights(plain, lean) -> bool:
    """Every policy tensor and the entropy coefficient equal, bit for bit."""
    a, b = plain.policy.state_dict(), lean.policy.state_dict()
    same = a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)
    return same and (plain.log_ent_coef is None or torch.equal(plain.log_ent_coef, lean.log_ent_coef))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tasks", nargs="+", default=["fetch-reach", "metaworld-reach", "metaworld-door-open"])
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--reps", type=int, default=4)
    args = parser.parse_args()
    lean_torch()
    print(f"{'task':<28} {'network':<10} {'SB3 SAC ms/step':>16} {'LeanSAC ms/step':>16} {'ratio':>6}  bit for bit")
    for task in args.tasks:
        spec = load_task(task)
        if spec.train.algo != "SAC":
            raise SystemExit(f"{task}: trains with {spec.train.algo}, not SAC")
        reward_fn = reward_for(task.replace("-", "_") + ".py")
        seconds: dict[type, float] = {SAC: 0.0, LeanSAC: 0.0}
        last = {}
        for cls in alternating((SAC, LeanSAC), args.reps):
            last[cls], spent = timed_training(cls, spec, reward_fn, args.steps)
            seconds[cls] += spent
        per_step = {cls: 1000 * s / (args.steps * args.reps) for cls, s in seconds.items()}
        network = "x".join(map(str, (spec.train.policy_kwargs or {}).get("net_arch", ["?"])))
        print(
            f"{task:<28} {network:<10} {per_step[SAC]:>16.2f} {per_step[LeanSAC]:>16.2f} "
            f"{per_step[SAC] / per_step[LeanSAC]:>6.3f}  {same_weights(last[SAC], last[LeanSAC])}"
        )


if __name__ == "__main__":
    main()
