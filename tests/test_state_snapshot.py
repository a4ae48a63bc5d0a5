"""`State` snapshots and `ApplyReward`'s cheap paths: float32 observations, dict observations and
lazily copied fields stay private, read-only snapshots of their own step, and the flattened dict
observation the policy sees is exactly Gymnasium's."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

from rewardsmith.reward.state import State
from rewardsmith.reward.wrappers import ApplyReward
from rewardsmith.task import load_task, make_env


def assert_private_read_only(array: np.ndarray, source: np.ndarray | None = None) -> None:
    assert array.dtype == np.float64
    with pytest.raises(ValueError):
        array[...] = 0.0
    with pytest.raises(ValueError):
        array.flags.writeable = True
    if source is not None:
        assert not np.shares_memory(array, source)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
def test_obs_of_any_dtype_is_a_private_read_only_float64_copy(dtype) -> None:
    obs = np.arange(5).astype(dtype)
    state = State(obs, 0.02)
    assert_private_read_only(state.obs, obs)
    obs[0] = 99
    assert state.obs[0] == 0.0
    assert state.qpos.size == state.qvel.size == 0
    assert_private_read_only(state.qpos)


def test_dict_observation_parts_are_private_flat_copies() -> None:
    obs = {"observation": np.ones((2, 2), np.float32), "desired_goal": np.zeros(3), "achieved_goal": np.ones(3)}
    state = State(obs, 0.04)
    assert state.obs.shape == (4,) and list(state.parts) == ["achieved_goal", "desired_goal", "observation"]
    for name, part in state.parts.items():
        assert_private_read_only(part, obs[name])
    obs["desired_goal"][0] = 5.0
    assert state.goal[0] == 0.0


@pytest.mark.parametrize("task", ["fetch-push", "shadowhand-block-rotate-z"])
def test_the_policy_sees_gymnasiums_own_flattening_of_a_dict_observation(task: str) -> None:
    env = ApplyReward(make_env(load_task(task)), source="native")
    space = env.env.observation_space
    flat, _ = env.reset(seed=0)
    raw = env.env.unwrapped._get_obs()  # the same step's dict observation, taken again from the env
    expected = gym.spaces.flatten(space, raw)
    np.testing.assert_array_equal(flat, expected)
    assert flat.dtype == expected.dtype and flat.flags.writeable
    for _ in range(3):
        flat, *_ = env.step(env.action_space.sample())
        assert flat.shape == env.observation_space.shape and flat.dtype == expected.dtype


def test_a_field_first_read_after_the_step_is_that_steps_not_a_later_one() -> None:
    """A lazily copied field (body positions) read on `state` after the env stepped on shows `state`'s step:
    `freeze` copies every field a reward has read before the simulator moves."""
    seen = []

    def reward(state, action, next_state):
        seen.append((state, next_state))
        return float(next_state.body("torso").pos[0]), {"x": float(next_state.body("torso").pos[0])}

    env = ApplyReward(gym.make("HalfCheetah-v5"), reward_fn=reward)
    env.reset(seed=0)
    xs = []
    for _ in range(5):
        env.step(np.ones(6))
        xs.append(float(env.unwrapped.data.qpos[0]))  # the root slide joint x, for comparison
    for (before, after), x in zip(seen, xs, strict=True):
        assert after.body("torso").pos[0] == pytest.approx(x, abs=1e-9)
        assert before.body("torso").pos[0] != after.body("torso").pos[0]
        assert_private_read_only(after.body("torso").pos)
    # a field no reward had read before, read late, is recomputed from that step's qpos/qvel
    late = seen[1][1].body("bthigh").pos
    assert_private_read_only(late)
    assert not np.allclose(late, seen[4][1].body("bthigh").pos)


def test_the_snapshot_never_aliases_the_simulator() -> None:
    env = ApplyReward(gym.make("Hopper-v5"), reward_fn=lambda s, a, n: (0.0, {}))
    env.reset(seed=0)
    state = env.state
    data = env.unwrapped.data
    for array, live in ((state.qpos, data.qpos), (state.qvel, data.qvel), (state.body("torso").pos, data.xpos)):
        assert_private_read_only(array, live)
