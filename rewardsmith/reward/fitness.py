"""Trusted fitness: the ground truth used for selection and reporting, separate from any reward.

A task's scorer is user-written code next to its spec (e.g. `envs/scorers.py`), never shown to the LLM.
It watches the same states as the reward and returns a fitness and a success flag per episode.
"""

from __future__ import annotations

import numpy as np

from rewardsmith.reward.state import State


class EpisodeScorer:
    """Per-episode fitness and success. Subclass and override `step` and `result`.

    `self.env` is the scorer-only accessor of the simulator: the unwrapped env, bound by the wrapper
    that runs the episode (`bind_env`) before `reset`. A scorer of an env without a MuJoCo model (Box2D,
    classic control) may read the env's own state there (e.g. `self.env.hull.position`); reward code
    only ever gets `State` snapshots and never this object. It is None where no live env exists
    (a replayed trajectory), so a scorer that needs it must say so in its own docs.
    """

    env = None

    def bind_env(self, env) -> None:
        """Give the scorer (never a reward) the unwrapped env whose episodes it scores."""
        self.env = env

    def reset(self, state: State) -> None:
        """Start a new episode at `state`."""

    def step(self, state: State, action: np.ndarray, next_state: State) -> None:
        """Observe one transition."""

    def result(self) -> tuple[float, bool]:
        """(fitness, success) of the episode so far."""
        raise NotImplementedError

    def sparse_reward(self, state: State, action: np.ndarray, next_state: State) -> float:
        """The success-only reward of the 'sparse' baseline: 1.0 on steps where the goal holds, else 0."""
        raise NotImplementedError


def human_normalized(method: float, human: float, sparse: float) -> float | None:
    """Eureka's human-normalised score: (method - sparse) / |human - sparse|; None when undefined."""
    denominator = abs(human - sparse)
    if not np.isfinite(denominator) or denominator < 1e-12:
        return None
    return float((method - sparse) / denominator)
