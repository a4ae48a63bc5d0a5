"""The per-step reward path is exact: along a fixed random-action rollout, the rewards `ApplyReward` computes (its
snapshots copy the fields rewards read up front, in one buffer) are bit for bit those of a reference computed the
straightforward way, from States rebuilt out of each step's qpos/qvel recorded on a twin env (`State.from_arrays`:
kinematics on a scratch MjData); the snapshots do not change the simulation; and what they hand out stays private
and read-only."""

from __future__ import annotations

import math

import numpy as np
import pytest

from rewardsmith.reward.contract import require_static_ok
from rewardsmith.reward.state import State, schema_for
from rewardsmith.reward.wrappers import ApplyReward
from rewardsmith.sandbox.policy import load_reward
from rewardsmith.task import ENVS_DIR, load_task, make_env

STEPS = 120


def example(task: str):
    path = ENVS_DIR / "examples" / f"{task.replace('-', '_')}.py"
    return load_reward(require_static_ok(path), filename=str(path))


def rich(state, action, next_state):
    """Reads every kind of field a State has: obs, qpos/qvel, time, dt, named bodies (pose, frame, com
    velocities), joints (scalar and free), sites where the model has them; a body is first read late."""
    names = next_state.names
    terms = {
        "obs": float(np.sum(next_state.obs * np.arange(next_state.obs.size))),
        "qpos": float(np.sum(next_state.qpos)) - float(np.sum(state.qpos)),
        "qvel": float(np.dot(next_state.qvel, next_state.qvel)),
        "time": next_state.time - state.time + next_state.dt,
        "action": float(np.sum(np.square(action))),
    }
    for name in names["bodies"][1:3]:
        body, before = next_state.body(name), state.body(name)
        terms[f"{name}_pos"] = float(np.sum(body.pos - before.pos))
        terms[f"{name}_quat"] = float(np.sum(body.quat * before.quat))
        terms[f"{name}_up"] = float(body.xmat[2, 2])
        terms[f"{name}_linvel"] = float(np.sum(body.linvel))
        terms[f"{name}_angvel"] = float(np.sum(body.angvel))
    for name in names["joints"][:2]:
        joint = next_state.joint(name)
        terms[f"{name}_joint"] = float(np.sum(joint.qpos)) + float(np.sum(joint.qvel))
    for name in names["sites"][:1]:
        terms[f"{name}_site"] = float(np.sum(next_state.site(name).pos)) + float(next_state.site(name).xmat[0, 0])
    if next_state.time > 40 * next_state.dt:  # a field no reward read before, from then on
        terms["late"] = float(np.sum(next_state.body(names["bodies"][-1]).pos))
    return math.fsum(terms.values()), terms


def rollout(task: str, reward_fn) -> tuple[list[float], list[float]]:
    """The wrapper's rewards and the reference's along one seeded random-action rollout (resets included)."""
    spec = load_task(task)
    env, twin = ApplyReward(make_env(spec), reward_fn=reward_fn), make_env(spec)
    schema = schema_for(twin)
    dt = float(twin.unwrapped.dt)
    actions = np.random.default_rng(7).uniform(-1, 1, (STEPS, *env.action_space.shape)).astype(np.float32)

    def recorded(obs):
        data = twin.unwrapped.data
        return State.from_arrays(obs.copy(), data.qpos.copy(), data.qvel.copy(), dt, schema, time=float(data.time))

    seed = 0
    env.reset(seed=seed)
    before = recorded(twin.reset(seed=seed)[0])
    got, expected = [], []
    for action in actions:
        obs, reward, terminated, truncated, _ = env.step(action)
        twin_obs, _, twin_terminated, twin_truncated, _ = twin.step(action)
        np.testing.assert_array_equal(obs, twin_obs)  # the snapshots leave the simulation alone
        assert (terminated, truncated) == (twin_terminated, twin_truncated)
        after = recorded(twin_obs)
        frozen = action.astype(np.float64)
        frozen.setflags(write=False)
        got.append(reward)
        expected.append(float(reward_fn(before, frozen, after)[0]))
        before = after
        if terminated or truncated:
            seed += 1
            env.reset(seed=seed)
            before = recorded(twin.reset(seed=seed)[0])
    return got, expected


@pytest.mark.parametrize("task", ["hopper-hop", "halfcheetah-run"])
def test_the_example_rewards_are_bit_identical_to_the_straightforward_reference(task: str) -> None:
    got, expected = rollout(task, example(task))
    assert got == expected  # exact float equality, step by step


@pytest.mark.parametrize("task", ["hopper-hop", "ant-run", "inverted-double-pendulum-balance"])
def test_a_reward_reading_every_kind_of_field_is_bit_identical_to_the_reference(task: str) -> None:
    got, expected = rollout(task, rich)
    assert got == expected


def test_fields_copied_up_front_are_private_read_only_snapshots_of_their_own_step() -> None:
    seen: list[tuple[State, np.ndarray]] = []

    def reward(state, action, next_state):
        seen.append((next_state, action))
        return float(next_state.body("torso").linvel[0]), {}

    env = ApplyReward(make_env(load_task("hopper-hop")), reward_fn=reward)
    env.reset(seed=0)
    data = env.unwrapped.data
    for _ in range(4):
        env.step(np.zeros(3))
    states = [state for state, _ in seen]
    for state in states[1:]:  # copied at the snapshot once the first step's reward had read them
        for array, live in ((state.body("torso").pos, data.xpos), (state.body("torso").angvel, data.cvel)):
            assert array.dtype == np.float64 and not array.flags.writeable
            assert not np.shares_memory(array, live)
            with pytest.raises(ValueError):
                array.flags.writeable = True
    assert len({float(state.body("torso").pos[2]) for state in states}) == len(states)  # each its own step
    action = seen[-1][1]
    with pytest.raises(ValueError):
        action.flags.writeable = True
