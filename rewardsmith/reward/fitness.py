"""Trusted fitness: the ground truth used for selection and reporting, separate from any reward.

A task's scorer is user-written code next to its spec (e.g. `envs/scorers.py`), never shown to the LLM.
It watches the same states as the reward and returns a fitness and a success flag per episode.
"""

from __future__ import annotations

import numpy as np

from rewardsmith.reward.state import State


class EpisodeScorer:
    """Per-episode fitness and success. Subclass and override `step` and `result`."""

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
