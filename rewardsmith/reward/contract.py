"""The reward contract: one Python file defining `compute_reward(state, action, next_state) -> (float, dict)`.

This module only reads and statically checks reward files, and validates what a loaded reward returns.
Generated code is executed only inside sandboxed workers (`rewardsmith.workers.main`), never here.

What a reward may read (`rewardsmith.reward.state.State`, read-only; `state` before the step, `next_state` after):
- every env: `obs` (the flat observation), `dt` (the control period in s: the env's `dt`/`tau`, a Box2D
  env's 1/FPS, or 1.0 where the dynamics have no time unit, as the description says), `time`;
- goal-conditioned envs (dict observations): `obs` is the `observation` part, `goal` the desired goal,
  `achieved_goal` the achieved one, `parts` every part by name (None / empty elsewhere);
- MuJoCo envs: `qpos`, `qvel`; `body(name)` (.pos, .quat, .xmat, .linvel, .angvel), `joint(name)` (.qpos,
  .qvel), `site(name)` (.pos, .xmat), `names`;
- contacts (MuJoCo): `contacts()` -> tuple of `Contact(geom1, geom2, body1, body2, force, pos)` with the
  normal force in N from the step's last physics substep; `touching(a, b=None)` -> bool and
  `contact_force(a, b=None)` -> N summed, by geom or body name (b=None: against anything). An unknown
  name raises KeyError listing the known ones.
With the optional progress strategy (`--progress-bonus`), the same module also defines `progress(state) ->
list[float]`, checked and used as `rewardsmith.reward.progress` describes.
Never available to a reward: the env object, its own reward, its `info`. Trusted scorers additionally get
the unwrapped env through `EpisodeScorer.env` (see `rewardsmith.reward.fitness`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from rewardsmith.errors import RewardFileError
from rewardsmith.sandbox.policy import check_source

RewardFn = Callable[[Any, np.ndarray, Any], tuple[float, dict[str, float]]]

CONTRACT = "compute_reward(state, action, next_state) -> (float, dict[str, float])"


def read_reward_source(path: Path) -> str:
    """The text of a reward file, or RewardFileError naming it."""
    path = Path(path)
    if not path.is_file():
        raise RewardFileError(f"{path}: no such reward file")
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise RewardFileError(f"{path}: cannot read reward file: {e}") from None


def require_static_ok(path: Path) -> str:
    """The source of a reward file that passes the static checks, else RewardFileError with the first finding."""
    source = read_reward_source(path)
    findings = check_source(source)
    if findings:
        first = findings[0]
        where = f"{path}:{first.line}" if first.line else str(path)
        more = f" (and {len(findings) - 1} more finding(s))" if len(findings) > 1 else ""
        raise RewardFileError(f"{where}: {first.message}{more}")
    return source


def validate_result(result: Any) -> tuple[float, dict[str, float]]:
    """Check one `compute_reward` return value against the contract; RewardFileError says what is wrong."""
    if not isinstance(result, tuple) or len(result) != 2:
        raise RewardFileError(
            f"compute_reward must return a (total, components) tuple, got {_describe(result)}; contract: {CONTRACT}"
        )
    total, components = result
    total = to_scalar(total, "the total")
    if not isinstance(components, dict):
        raise RewardFileError(f"the components must be a dict of name -> float, got {_describe(components)}")
    checked: dict[str, float] = {}
    for name, value in components.items():
        if not isinstance(name, str):
            raise RewardFileError(f"component names must be strings, got {_describe(name)}")
        checked[name] = to_scalar(value, f"component {name!r}")
    return total, checked


def to_scalar(value: Any, what: str) -> float:
    """A finite Python float from a number or a size-1 array, else RewardFileError."""
    if isinstance(value, (bool, str, bytes)) or value is None:
        raise RewardFileError(f"{what} must be a finite float, got {_describe(value)}")
    if isinstance(value, np.ndarray) and value.size != 1:
        raise RewardFileError(f"{what} must be a scalar, got an array of shape {value.shape}")
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise RewardFileError(f"{what} must be a finite float, got {_describe(value)}") from None
    if not math.isfinite(number):
        raise RewardFileError(f"{what} must be finite, got {number}")
    return number


def _describe(value: Any) -> str:
    text = repr(value)
    return f"{type(value).__name__} {text[:60]}{'...' if len(text) > 60 else ''}"
