"""Gymnasium wrappers that put a reward file (or a baseline reward) in place of the env's own reward."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Literal

import gymnasium as gym
import numpy as np

from rewardsmith.reward.contract import RewardFn, to_scalar, validate_result
from rewardsmith.reward.fitness import EpisodeScorer
from rewardsmith.reward.state import Snapshotter, State

RewardSource = Literal["candidate", "native", "sparse"]
NATIVE_REWARD_KEY_PREFIXES = ("reward_", "forward_reward", "ctrl_cost", "contact_cost", "healthy_reward")
NATIVE_REWARD_KEYS = {"distance_penalty", "velocity_penalty", "reward"}


def is_native_reward_key(key: str) -> bool:
    """True for `info` keys that carry the env's own reward terms (hidden from rewards and the LLM)."""
    return key in NATIVE_REWARD_KEYS or key.startswith(NATIVE_REWARD_KEY_PREFIXES)


def frozen(action) -> np.ndarray:
    """The action as the reward and the scorer get it: a read-only float64 view of a private copy."""
    copy = action.astype(np.float64) if type(action) is np.ndarray else np.array(action, dtype=np.float64)
    copy.setflags(write=False)
    return copy[...]


def neutral_action(space: gym.Space) -> Any:
    """The action that does least, as the env takes it: zeros (clipped to the bounds) for a continuous action, the
    middle choice for a discrete one (`n // 2`: no torque for Acrobot, no push for MountainCar-v0)."""
    if isinstance(space, gym.spaces.Discrete):
        return np.int64(space.start + space.n // 2)
    if isinstance(space, gym.spaces.Box):
        return np.clip(np.zeros(space.shape, dtype=space.dtype), space.low, space.high)
    raise TypeError(f"no neutral action for a {type(space).__name__} action space (Box or Discrete)")


class ApplyReward(gym.Wrapper):
    """Replace the env reward with a reward file's total (or a baseline) and score episodes alongside.

    The native reward never reaches the policy: it is dropped from the step's reward and its terms from
    `info`; it is only summed into `info["episode_stats"]["native_return"]` for reporting. At episode end,
    `info["episode_stats"]` holds the return, per-component sums, fitness, success, length and how it ended.
    A dict observation (goal-conditioned envs) reaches the policy flattened (Gymnasium's key order) and
    the reward as `State.obs`/`goal`/`achieved_goal`.
    """

    def __init__(
        self,
        env: gym.Env,
        reward_fn: RewardFn | None = None,
        scorer: EpisodeScorer | None = None,
        source: RewardSource = "candidate",
    ) -> None:
        super().__init__(env)
        if source == "candidate" and reward_fn is None:
            raise ValueError("source='candidate' needs a reward_fn")
        if source == "sparse" and scorer is None:
            raise ValueError("source='sparse' needs a scorer")
        self.reward_fn, self.scorer, self.source = reward_fn, scorer, source
        self._snapshot = Snapshotter(env)
        self._dict_space = env.observation_space if isinstance(env.observation_space, gym.spaces.Dict) else None
        self._flat_parts: list[tuple[str, np.dtype | None]] | None = None
        if self._dict_space is not None:
            self.observation_space = gym.spaces.flatten_space(self._dict_space)
            parts = self._dict_space.spaces
            if all(type(space) is gym.spaces.Box for space in parts.values()):
                self._flat_parts = [(key, space.dtype) for key, space in parts.items()]
        if scorer is not None:
            scorer.bind_env(env.unwrapped)
        self._info_keys: set[str] = set()
        self._native_keys: list[str] = []
        self._schema = self._snapshot.schema
        self._state: State | None = None
        self._sums: dict[str, float] = {}
        self._return = self._native_return = 0.0
        self._length = 0

    @property
    def state(self) -> State | None:
        """The latest state snapshot (after the last reset or step)."""
        return self._state

    @property
    def schema(self):
        """Name maps of the MuJoCo model (None for a non-MuJoCo env)."""
        return self._schema

    def reset(self, **kwargs: Any):
        obs, info = self.env.reset(**kwargs)
        self._state = self._snapshot(obs)
        if self.scorer is not None:
            self.scorer.reset(self._state)
        self._sums, self._return, self._native_return, self._length = {}, 0.0, 0.0, 0
        return self._policy_obs(obs), self._strip_native(info)

    def _policy_obs(self, obs):
        """What the policy sees: the observation, a dict one flattened (as `gym.spaces.flatten`, which is
        slower: for a dict of boxes, each part cast to its box's dtype and concatenated in the space's order)."""
        if self._dict_space is None:
            return obs
        if self._flat_parts is not None:
            return np.concatenate([np.asarray(obs[key], dtype=dtype).reshape(-1) for key, dtype in self._flat_parts])
        return gym.spaces.flatten(self._dict_space, obs)

    def step(self, action):
        state = self._state
        if state is None:
            raise RuntimeError("step() before reset()")
        state.freeze()
        obs, native, terminated, truncated, info = self.env.step(action)
        next_state = self._snapshot(obs)
        frozen_action = frozen(action)
        native = float(native)
        reward = self._reward(state, frozen_action, next_state, native)
        if self.scorer is not None:
            self.scorer.step(state, frozen_action, next_state)
        self._state = next_state
        self._return += reward
        self._native_return += native
        self._length += 1
        info = self._strip_native(info)
        if terminated or truncated:
            info["episode_stats"] = self.episode_stats(terminated)
        return obs if self._dict_space is None else self._policy_obs(obs), reward, terminated, truncated, info

    def _reward(self, state: State, action: np.ndarray, next_state: State, native: float) -> float:
        if self.source == "native":
            return native
        if self.source == "sparse":
            assert self.scorer is not None  # checked in __init__
            return float(self.scorer.sparse_reward(state, action, next_state))
        assert self.reward_fn is not None  # checked in __init__
        result = self.reward_fn(state, action, next_state)
        if type(result) is not tuple or len(result) != 2 or type(result[1]) is not dict:
            validate_result(result)  # raises with the exact problem
        total, components = result
        total = total if type(total) is float and math.isfinite(total) else to_scalar(total, "the total")
        sums = self._sums
        for name, value in components.items():
            if type(value) is not float or not math.isfinite(value):
                value = to_scalar(value, f"component {name!r}")
            sums[name] = sums.get(name, 0.0) + value
        return total

    def _strip_native(self, info: dict) -> dict:
        """Drop the env's reward terms from `info` (the env's key set is classified once, not every step)."""
        if info.keys() != self._info_keys:
            self._info_keys = set(info)
            self._native_keys = [k for k in info if is_native_reward_key(k)]
        for key in self._native_keys:
            del info[key]
        return info

    def episode_stats(self, terminated: bool) -> dict[str, Any]:
        """Statistics of the episode so far."""
        stats: dict[str, Any] = {
            "return": self._return,
            "native_return": self._native_return,
            "length": self._length,
            "termination": "terminated" if terminated else "truncated",
            "components": dict(self._sums),
        }
        if self.scorer is not None:
            fitness, success = self.scorer.result()
            stats["fitness"], stats["success"] = float(fitness), bool(success)
        return stats


class RewardWrapper(ApplyReward):
    """Train your own agent on a reward file: `env = RewardWrapper(gym.make("Hopper-v5"), "reward.py")`.

    The file is checked by the same AST gate rewardsmith uses and run in this process, so only use it
    on a reward you have reviewed (rewardsmith itself only runs generated code in sandboxed workers).
    Each step's `info["reward_components"]` holds the reward's components for that step (name -> float).
    """

    def __init__(self, env: gym.Env, reward_path: str | Path) -> None:
        from rewardsmith.reward.contract import require_static_ok
        from rewardsmith.sandbox.policy import load_reward

        source = require_static_ok(Path(reward_path))
        reward_fn = load_reward(source, filename=str(reward_path))
        self._components: dict = {}

        def recording(state, action, next_state):
            result = reward_fn(state, action, next_state)
            self._components = result[1] if type(result) is tuple and len(result) == 2 else {}
            return result

        super().__init__(env, reward_fn=recording)

    def step(self, action):
        obs, reward, terminated, truncated, info = super().step(action)
        info["reward_components"] = {str(k): float(v) for k, v in self._components.items()}  # validated by step
        return obs, reward, terminated, truncated, info
