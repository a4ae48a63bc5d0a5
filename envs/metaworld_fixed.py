"""Meta-World with one fixed goal: `env = "metaworld_fixed:FixedGoal"` in a spec.

`Meta-World/MT1` draws one of its 50 goal positions at random every episode. `FixedGoal` sets one of them,
`goal` (0-49), once, and keeps it for every episode: the goal is the same for training, evaluation and videos.
Every other keyword (render_mode, width, height, seed, ...) goes to `Meta-World/MT1`. `seed` defaults to 0:
MT1 draws its 50 goals from NumPy's global generator unless given one, so without it goal 0 would be another
position in every process (the training worker's goal would not be the evaluation worker's).
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym


def FixedGoal(env_name: str, goal: int = 0, **kwargs: Any) -> gym.Env:
    """`Meta-World/MT1` for `env_name` with its `goal`-th task set once and never resampled."""
    import metaworld  # noqa: F401 - registers Meta-World/MT1

    kwargs.setdefault("seed", 0)
    env = gym.make("Meta-World/MT1", env_name=env_name, task_select="pseudorandom", **kwargs)
    tasks = env.get_wrapper_attr("tasks")
    if not 0 <= goal < len(tasks):
        raise TypeError(f"goal must be 0-{len(tasks) - 1} for {env_name}, not {goal}")
    env.unwrapped.set_task(tasks[goal])
    return env
