"""The `video` worker mode: one deterministic episode of a trained policy, as frames.

The policy in `model.zip` was written by an untrusted worker, and loading it unpickles, so it is only
ever loaded here, locked down. Builds the plain task env (no reward file) with `render_mode="rgb_array"`
(MuJoCo envs at the asked frame size; Box2D and classic-control envs at their own; a dict observation is
flattened for the policy as in training),
renders one frame (the GL context must exist before lock-down), enters the sandbox, loads the policy,
rolls out one episode and writes every k-th frame to `frames.npy` (uint8, no pickle). The parent
(`rewardsmith.stages.video`) validates and encodes them.
"""

from __future__ import annotations

import math
import os
import sys
from pathlib import Path
from typing import Any

import numpy as np

from rewardsmith.errors import RewardsmithError, TaskSpecError
from rewardsmith.files import write_json_atomic
from rewardsmith.run_folder.records import FRAMES_FILE, SUMMARY_FILE
from rewardsmith.task import make_env
from rewardsmith.workers.job import WorkerJob

MAX_FRAMES = 300
RENDER_ERROR = "render:"


def fit_frame(frame, width: int, height: int) -> np.ndarray:
    """A frame within `width` x `height`: every k-th pixel where the env renders at its own, larger size (classic
    control's 500 x 500, Box2D's 600 x 400), so a whole episode's frames stay a short video's size."""
    image = np.asarray(frame, dtype=np.uint8)
    stride = max(1, math.ceil(image.shape[0] / height), math.ceil(image.shape[1] / width))
    return np.ascontiguousarray(image[::stride, ::stride])


def _policy_obs(env, obs):
    """What the policy was trained on: a dict observation flattened, as `ApplyReward` gives it."""
    import gymnasium as gym

    space = env.observation_space
    return gym.spaces.flatten(space, obs) if isinstance(space, gym.spaces.Dict) else obs


def run_video_job(job: WorkerJob) -> dict[str, Any]:
    """Roll out the policy in `options["model_path"]` for one deterministic episode and save its frames."""
    gl = job.options.get("gl")
    if gl and "mujoco" not in sys.modules:
        os.environ["MUJOCO_GL"] = gl  # read by mujoco when it is first imported, below
    import torch
    from stable_baselines3 import PPO, SAC

    from rewardsmith.workers.main import enter_sandbox

    torch.set_num_threads(1)
    spec = job.task()
    opts = job.options
    steps, every = int(opts.get("max_steps", MAX_FRAMES)), max(1, int(opts.get("every", 2)))
    width, height = int(opts.get("width", 320)), int(opts.get("height", 240))
    try:
        try:  # MuJoCo envs take a frame size; others (Box2D, classic control) render at their own (`fit_frame`)
            env = make_env(spec, render_mode="rgb_array", width=width, height=height)
        except TaskSpecError:
            env = make_env(spec, render_mode="rgb_array")
        obs, _ = env.reset(seed=job.seed)
        first = env.render()
    except Exception as e:  # noqa: BLE001 - any GL failure means "try another backend"
        raise RewardsmithError(
            f"{RENDER_ERROR} MUJOCO_GL={os.environ.get('MUJOCO_GL', '')}: {type(e).__name__}: {e}"
        ) from None
    algo: type[PPO] | type[SAC] = PPO if spec.train.algo == "PPO" else SAC
    layers = enter_sandbox(job)
    model = algo.load(Path(opts["model_path"]), device="cpu")
    frames, total, length = [fit_frame(first, width, height)], 0.0, 0
    for step in range(1, steps + 1):
        action, _ = model.predict(_policy_obs(env, obs), deterministic=True)
        obs, reward, terminated, truncated, _ = env.step(action)
        total, length = total + float(reward), step
        if step % every == 0:
            frames.append(fit_frame(env.render(), width, height))
        if terminated or truncated:
            break
    np.save(job.out_dir / FRAMES_FILE, np.stack(frames), allow_pickle=False)
    fps = float(env.metadata.get("render_fps") or 30) / every
    summary = {
        "status": "ok",
        "frames": len(frames),
        "fps": fps,
        "episode_steps": length,
        "native_return": total,
        "sandbox": layers,
    }
    write_json_atomic(job.out_dir / SUMMARY_FILE, summary)
    return summary
