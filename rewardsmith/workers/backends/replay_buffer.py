"""SAC's replay buffer in a training worker: no larger than the job's steps, and a clear error where even that cannot
fit the worker's memory.

SB3 reserves the whole buffer when the model is built (1,000,000 transitions by default, each observation stored
twice, as `observations` and `next_observations`). The worker's address space is capped (`SandboxSettings.memory_mb`,
RLIMIT_AS), and the reservation counts against it whether or not the pages are ever written: a Humanoid's 348
float64 observations take 5.6 GB, and the worker failed with "can't start new thread" or MuJoCo's "Could not
allocate memory". A job never stores more transitions than its steps, so a buffer of that many samples the same
transitions with the same random draws (SB3 samples from the filled part until the buffer is full): the same
training, bit for bit (`tests/test_replay_buffer.py`), in a fraction of the memory.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rewardsmith.errors import TaskSpecError
from rewardsmith.task import TaskSpec

SB3_BUFFER = 1_000_000
"""SB3's SAC `buffer_size` when a spec names none."""
HEADROOM_MB = 2048
"""What a training worker needs beside the buffer within its address space: Python, torch, MuJoCo, the networks."""


def job_buffer_size(hyperparams: dict[str, Any], timesteps: int, n_envs: int) -> int:
    """The buffer a job of `timesteps` env steps on `n_envs` envs needs: the spec's (or SB3's default), capped at
    the transitions the job stores (`timesteps`, plus a margin of two vector steps: SB3 may step past the total by
    up to one vector step)."""
    return int(min(hyperparams.get("buffer_size", SB3_BUFFER), timesteps + 2 * n_envs))


def buffer_bytes(size: int, observation_space, action_space) -> int:
    """Bytes SB3's `ReplayBuffer` reserves for `size` transitions: observations twice in their own dtype, the
    action (float32 where the space is float64, as SB3 casts it), reward, done and timeout flags."""
    obs = int(np.prod(observation_space.shape)) * np.dtype(observation_space.dtype).itemsize
    action_dtype = np.float32 if np.dtype(action_space.dtype) == np.float64 else np.dtype(action_space.dtype)
    action = int(np.prod(action_space.shape or (1,))) * np.dtype(action_dtype).itemsize
    return size * (2 * obs + action + 3 * 4)


def check_buffer_fits(where: str, size: int, observation_space, action_space, memory_mb: int) -> None:
    """TaskSpecError naming the fix when a buffer of `size` transitions cannot fit beside the worker's own needs
    (`HEADROOM_MB`) in its `memory_mb` of address space."""
    needed = buffer_bytes(size, observation_space, action_space)
    room = (memory_mb - HEADROOM_MB) * 2**20
    if needed <= room:
        return
    per = buffer_bytes(1, observation_space, action_space)
    fits = max(room // per, 0)
    raise TaskSpecError(
        f"{where}: SAC's replay buffer of {size:,} transitions needs {needed / 1e9:.1f} GB (each stores the "
        f"{int(np.prod(observation_space.shape))}-dim {np.dtype(observation_space.dtype)} observation twice), and a "
        f"training worker has {memory_mb / 1024:.0f} GiB of address space, {HEADROOM_MB // 1024} GiB of it for "
        f"itself: set `buffer_size = {fits:_}` or less in the spec's [train] hyperparams (SAC then samples from "
        "the latest transitions only), or train fewer steps"
    )


def check_task_buffer_fits(spec: TaskSpec, env, steps: int | None = None) -> None:
    """For a SAC spec, `check_buffer_fits` for its longest training (or `steps`) with a worker's default memory, on
    the observation the policy sees (a goal env's dict flattened; `env`: the task's `ApplyReward` env, the caller's
    to close): what `rewardsmith run` and `check-task` ask before anything is spent."""
    if spec.train.algo != "SAC":
        return
    from rewardsmith.sandbox.lockdown import SandboxSettings

    steps = steps or max(spec.train.timesteps, spec.train.final_timesteps)
    space, action = env.observation_space, env.action_space
    size = job_buffer_size(spec.train.hyperparams, steps, spec.train.n_envs)
    where = f"{spec.source or spec.name}: a training of {steps:,} steps"
    check_buffer_fits(where, size, space, action, SandboxSettings().memory_mb)
