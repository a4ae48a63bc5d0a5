"""PPO training throughput on HalfCheetah: a generated-style reward file vs the env's native reward.

Same PPO settings, same seed, alternating runs, in one process; prints the median ratio of env steps
per second (goal >= 0.95), by wall clock and by this process's CPU time (training is single-threaded
here, so CPU time is the figure that other load on a shared machine disturbs least).
Run: `.venv/bin/python bench/overhead.py [--steps 8192] [--reps 5]`.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import gymnasium as gym
import torch
from stable_baselines3 import PPO

from rewardsmith.reward.contract import require_static_ok
from rewardsmith.reward.wrappers import ApplyReward
from rewardsmith.sandbox.policy import load_reward

REWARD = Path(__file__).with_name("generated_style_reward.py")


def make_env(with_reward: bool) -> gym.Env:
    env = gym.make("HalfCheetah-v5")
    if with_reward:
        env = ApplyReward(env, reward_fn=load_reward(require_static_ok(REWARD), filename=str(REWARD)))
    return env


def steps_per_second(with_reward: bool, steps: int, seed: int) -> tuple[float, float]:
    """(steps per wall second, steps per CPU second) of one PPO training run."""
    env = make_env(with_reward)
    model = PPO("MlpPolicy", env, n_steps=1024, batch_size=64, n_epochs=10, seed=seed, verbose=0, device="cpu")
    wall, cpu = time.perf_counter(), time.process_time()
    model.learn(steps)
    return steps / (time.perf_counter() - wall), steps / (time.process_time() - cpu)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--steps", type=int, default=8192)
    parser.add_argument("--reps", type=int, default=5)
    args = parser.parse_args()
    torch.set_num_threads(1)
    steps_per_second(True, 1024, 0)  # warm-up: imports, allocator, MuJoCo model cache
    wall_ratios, cpu_ratios, native, generated = [], [], [], []
    for rep in range(args.reps):
        order = (False, True) if rep % 2 == 0 else (True, False)
        result = {flag: steps_per_second(flag, args.steps, rep) for flag in order}
        native.append(result[False][0])
        generated.append(result[True][0])
        wall_ratios.append(result[True][0] / result[False][0])
        cpu_ratios.append(result[True][1] / result[False][1])
        print(
            f"rep {rep}: native {result[False][0]:7.1f} steps/s   reward file {result[True][0]:7.1f} steps/s   "
            f"wall ratio {wall_ratios[-1]:.3f}   cpu ratio {cpu_ratios[-1]:.3f}"
        )
    print(
        f"median native {statistics.median(native):.1f} steps/s, reward file {statistics.median(generated):.1f} steps/s"
    )
    print(
        f"median ratio (reward file / native): wall {statistics.median(wall_ratios):.3f}, "
        f"cpu {statistics.median(cpu_ratios):.3f}   goal >= 0.95"
    )


if __name__ == "__main__":
    main()
