"""Progress counts (an optional strategy): the candidate's `progress(state)` and a count-based training bonus.

With `--progress-bonus BETA` (> 0) a candidate module defines, besides `compute_reward`,
`progress(state) -> list[float]`: one number in [0, 1] per sub-goal of the task (0 = not started, 1 = done),
the same length on every state. The training worker discretises the progress vector of each step's
`next_state` into a cell, `tuple(min(bins - 1, floor(p_i * bins)))`, counts the visits N of every cell and
adds `beta / sqrt(N)` to the candidate's reward (`ProgressBonus`), so rarely reached progress is explored.

The counts live only inside the sandboxed training worker; the evaluation worker never sees them, so the
bonus never touches fitness. Each training job starts with fresh counts: a rung resumed from a checkpoint,
a warm start and the final retraining all count from zero. `progress` is loaded, like `compute_reward`,
only inside a locked-down worker (`load_with_progress`), never in the parent.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, cast

import gymnasium as gym
import numpy as np

from rewardsmith.errors import RewardFileError
from rewardsmith.reward.contract import RewardFn

PROGRESS_FUNCTION = "progress"
PROGRESS_CONTRACT = "progress(state) -> list[float]"
DEFAULT_BINS = 10
BONUS_COMPONENT = "progress_bonus"
MAX_SUBGOALS = 32
"""More sub-goals than this is no progress vector a count table can use (the cells would never repeat)."""

ProgressFn = Callable[[Any], Any]


@dataclass(frozen=True)
class ProgressOptions:
    """The strategy's settings: the bonus scale `beta` (> 0 means on) and the bins per sub-goal."""

    beta: float
    bins: int = DEFAULT_BINS

    @classmethod
    def from_job(cls, options: dict[str, Any]) -> ProgressOptions | None:
        """The settings a job's options carry (`options["progress"]`), or None when the strategy is off."""
        raw = options.get("progress")
        if not isinstance(raw, dict) or not float(raw.get("beta") or 0) > 0:
            return None
        bins = int(raw.get("bins") or DEFAULT_BINS)
        if bins < 1:
            raise ValueError(f"progress bins must be at least 1, got {bins}")
        return cls(beta=float(raw["beta"]), bins=bins)


def validate_progress(value: Any, expected_length: int | None = None) -> list[float]:
    """One `progress(state)` result as a list of floats in [0, 1], else RewardFileError saying what is wrong
    (not a sequence, empty, a non-number, non-finite, outside [0, 1], or a length other than `expected_length`)."""
    if isinstance(value, np.ndarray):
        if value.ndim != 1 or value.size > MAX_SUBGOALS:
            raise RewardFileError(
                f"progress must return a flat list of at most {MAX_SUBGOALS} floats, got an array of shape {value.shape}"
            )
        value = value.tolist()
    if isinstance(value, (str, bytes, dict)) or not isinstance(value, Sequence):
        raise RewardFileError(
            f"progress must return a list of floats (one per sub-goal), got {_describe(value)}; "
            f"contract: {PROGRESS_CONTRACT}"
        )
    if not value:
        raise RewardFileError("progress returned an empty list; return one value in [0, 1] per sub-goal")
    if len(value) > MAX_SUBGOALS:
        raise RewardFileError(f"progress returned {len(value)} values; use at most {MAX_SUBGOALS} sub-goals")
    if expected_length is not None and len(value) != expected_length:
        raise RewardFileError(
            f"progress returned {len(value)} values here but {expected_length} before; "
            "return the same number of sub-goals on every state"
        )
    result = []
    for i, item in enumerate(value):
        if isinstance(item, (bool, str, bytes)) or item is None:
            raise RewardFileError(f"progress[{i}] must be a float in [0, 1], got {_describe(item)}")
        try:
            number = float(item)
        except (TypeError, ValueError):
            raise RewardFileError(f"progress[{i}] must be a float in [0, 1], got {_describe(item)}") from None
        if not math.isfinite(number):
            raise RewardFileError(f"progress[{i}] must be finite, got {number}")
        if not 0.0 <= number <= 1.0:
            raise RewardFileError(f"progress[{i}] = {number:.6g} is outside [0, 1]; clip or normalise it")
        result.append(number)
    return result


def progress_cell(progress: Sequence[float], bins: int) -> tuple[int, ...]:
    """The count-table cell of a progress vector: `min(bins - 1, floor(p * bins))` per sub-goal (1.0 falls in
    the last bin, 0.0 in the first)."""
    return tuple(min(bins - 1, int(math.floor(p * bins))) for p in progress)


class ProgressCounts:
    """Visit counts over progress cells and the bonus `beta / sqrt(N)` of a visit (N counts this visit)."""

    def __init__(self, options: ProgressOptions) -> None:
        self.beta, self.bins = options.beta, options.bins
        self.counts: dict[tuple[int, ...], int] = {}

    def visit(self, progress: Sequence[float]) -> float:
        """Count one visit of the cell of `progress` and return its bonus."""
        cell = progress_cell(progress, self.bins)
        n = self.counts.get(cell, 0) + 1
        self.counts[cell] = n
        return self.beta / math.sqrt(n)


class ProgressBonus(gym.Wrapper):
    """Adds the count bonus of each step's `next_state` progress to the reward of an `ApplyReward` env below it.

    `progress_fn` is the candidate's `progress`; `counts` may be shared by every env of one training job. At
    episode end, `info["episode_stats"]` gains the episode's bonus in its return and, as components, the bonus
    sum (`progress_bonus`) and per sub-goal the sum of its progress (`progress_0`, ...: the analyzer's mean per
    step is the mean progress). A bad progress value raises RewardFileError, which fails the job."""

    def __init__(self, env: gym.Env, progress_fn: ProgressFn, counts: ProgressCounts) -> None:
        super().__init__(env)
        if not hasattr(env, "state"):
            raise ValueError("ProgressBonus wraps an env with a `state` snapshot (ApplyReward)")
        self.progress_fn, self.counts = progress_fn, counts
        self._length: int | None = None
        self._bonus = 0.0
        self._sums: list[float] = []

    def reset(self, **kwargs: Any):
        self._bonus, self._sums = 0.0, [0.0] * len(self._sums)
        return self.env.reset(**kwargs)

    def step(self, action):
        obs, reward, terminated, truncated, info = self.env.step(action)
        progress = validate_progress(self.progress_fn(cast(Any, self.env).state), self._length)
        if self._length is None:
            self._length, self._sums = len(progress), [0.0] * len(progress)
        bonus = self.counts.visit(progress)
        self._bonus += bonus
        for i, p in enumerate(progress):
            self._sums[i] += p
        stats = info.get("episode_stats")
        if stats is not None:
            stats["return"] += self._bonus
            stats["components"][BONUS_COMPONENT] = self._bonus
            stats["components"].update({f"progress_{i}": s for i, s in enumerate(self._sums)})
        return obs, float(reward) + bonus, terminated, truncated, info


def load_with_progress(source: str, *, filename: str, gate: bool = True) -> tuple[RewardFn, ProgressFn | None]:
    """Run a candidate module once and return its `compute_reward` and its `progress` (None when it defines
    none). Call only inside a locked-down worker: this runs the module body."""
    from rewardsmith.sandbox.policy import load_functions

    found = load_functions(source, ("compute_reward",), optional=(PROGRESS_FUNCTION,), filename=filename, gate=gate)
    return found["compute_reward"], found.get(PROGRESS_FUNCTION)


def _describe(value: Any) -> str:
    text = repr(value)
    return f"{type(value).__name__} {text[:60]}{'...' if len(text) > 60 else ''}"
