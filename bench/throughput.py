"""Env steps/s per task family: raw stepping, and PPO/SAC training with a reward file vs the native reward.

    python bench/throughput.py                      # every family, small counts
    python bench/throughput.py --families meta peer --train-steps 2000
    python bench/throughput.py --vec                # also PPO with n_envs=4: DummyVecEnv vs SubprocVecEnv

Per family it prints: raw `env.step` steps/s (random actions), the same through `ApplyReward` with the
native reward and with a reward file (the family's example reward in `envs/examples/`), then training
steps/s of the spec's algorithm (PPO or SAC, one env) with the native reward and with the reward file,
and the reward file's training overhead in percent. Single-threaded torch, CPU; numbers are noisy on a
shared machine: repeat with --reps.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import torch

from rewardsmith.reward.contract import require_static_ok
from rewardsmith.reward.wrappers import ApplyReward
from rewardsmith.sandbox.policy import load_reward
from rewardsmith.task import ENVS_DIR, load_task, make_env

EXAMPLES = ENVS_DIR / "examples"
FAMILIES = {  # family -> (representative task, its example reward)
    "locomotion": ("halfcheetah-run", "halfcheetah_run.py"),
    "meta": ("metaworld-reach", "metaworld_reach.py"),
    "fetch": ("fetch-push", "fetch_push.py"),
    "adroit": ("adroit-door", "metaworld_reach.py"),
    "shadowhand": ("shadowhand-block-rotate-z", "fetch_push.py"),
    "peer": ("mountaincar-reach-flag", "mountaincar_reach_flag.py"),
    "box2d": ("bipedalwalker-walk", "mountaincar_reach_flag.py"),
}
GENERIC = """
import numpy as np


def compute_reward(state, action, next_state):
    goal = next_state.goal if next_state.goal is not None else next_state.obs[:3]
    components = {"obs": -0.01 * float(np.sum(np.square(next_state.obs[:3] - goal[:3]))),
                  "effort": -0.01 * float(np.sum(np.square(action)))}
    return sum(components.values()), components
"""


def reward_for(family: str, example: str):
    """The family's example reward, or a generic obs-only one where the example does not fit the env."""
    path = EXAMPLES / example
    own = FAMILIES[family][0].replace("-", "_") + ".py" == example
    if own and path.is_file():
        return load_reward(require_static_ok(path), filename=str(path)), example
    return load_reward(GENERIC, filename="generic.py"), "generic obs reward"


def best(reps: int, measure, *args) -> float:
    """The best of `reps` measurements: the least disturbed by other work on the machine."""
    return max(measure(*args) for _ in range(reps))


def raw_rate(spec, reward_fn, source: str | None, steps: int) -> float:
    """Random-action env steps/s: the bare env (source None) or through ApplyReward."""
    env = make_env(spec) if source is None else ApplyReward(make_env(spec), reward_fn=reward_fn, source=source)
    env.reset(seed=0)
    env.action_space.seed(0)
    started = time.perf_counter()
    for _ in range(steps):
        _, _, terminated, truncated, _ = env.step(env.action_space.sample())
        if terminated or truncated:
            env.reset()
    return steps / (time.perf_counter() - started)


def train_rate(spec, reward_fn, source: str, steps: int, n_envs: int = 1, vec: str = "dummy") -> float:
    from stable_baselines3 import PPO, SAC
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    def make():
        return ApplyReward(make_env(spec), reward_fn=reward_fn, source=source)

    env = (SubprocVecEnv if vec == "subproc" else DummyVecEnv)([make] * n_envs)
    algo = {"PPO": PPO, "SAC": SAC}[spec.train.algo]
    hyper = dict(spec.train.hyperparams)
    if spec.train.algo == "SAC":
        hyper.update(learning_starts=min(hyper.get("learning_starts", 100), steps // 4), buffer_size=steps + 10)
    else:
        hyper.update(n_steps=max(64, min(hyper.get("n_steps", 512), steps // n_envs)))
    model = algo("MlpPolicy", env, seed=0, verbose=0, policy_kwargs=spec.train.sb3_policy_kwargs(), **hyper)
    started = time.perf_counter()
    model.learn(steps)
    rate = model.num_timesteps / (time.perf_counter() - started)
    env.close()
    return rate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--families", nargs="*", default=list(FAMILIES), choices=list(FAMILIES))
    parser.add_argument("--raw-steps", type=int, default=2000)
    parser.add_argument("--train-steps", type=int, default=2048)
    parser.add_argument("--reps", type=int, default=1)
    parser.add_argument("--vec", action="store_true", help="also PPO with 4 envs: DummyVecEnv vs SubprocVecEnv")
    args = parser.parse_args()
    torch.set_num_threads(1)
    header = f"{'family':11} {'task':27} {'algo':4} {'raw':>7} {'native':>7} {'file':>7} {'train native':>12} {'train file':>10} {'overhead':>8}"
    print(header + "   (env steps/s; reward file: example or generic)")
    for family in args.families:
        name, example = FAMILIES[family]
        spec = load_task(name)
        reward_fn, used = reward_for(family, example)
        raw = best(args.reps, raw_rate, spec, None, None, args.raw_steps)
        native = best(args.reps, raw_rate, spec, None, "native", args.raw_steps)
        wrapped = best(args.reps, raw_rate, spec, reward_fn, "candidate", args.raw_steps)
        t_native = best(args.reps, train_rate, spec, None, "native", args.train_steps)
        t_file = best(args.reps, train_rate, spec, reward_fn, "candidate", args.train_steps)
        overhead = 100.0 * (t_native / t_file - 1.0)
        print(
            f"{family:11} {name:27} {spec.train.algo:4} {raw:7.0f} {native:7.0f} {wrapped:7.0f} "
            f"{t_native:12.0f} {t_file:10.0f} {overhead:7.1f}%   ({used})"
        )
        if args.vec and spec.train.algo == "PPO":
            for vec in ("dummy", "subproc"):
                rate = train_rate(spec, reward_fn, "candidate", args.train_steps * 2, n_envs=4, vec=vec)
                print(f"{'':11} {name:27} PPO n_envs=4 {vec:8} {rate:7.0f} steps/s")
    print(f"(torch threads 1; {Path.cwd()})")


if __name__ == "__main__":
    main()
