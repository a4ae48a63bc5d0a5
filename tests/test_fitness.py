"""Trusted fitness: scripted state trajectories score as a researcher would judge them."""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from rewardsmith.reward.fitness import human_normalized
from rewardsmith.reward.state import schema_for, snapshot
from rewardsmith.task import import_from_folder, load_task, make_env, make_scorer

Pose = Callable[[int, np.ndarray, np.ndarray], None]  # (step, qpos, qvel) -> edits them in place


def kinematic(task: str, pose: Pose, steps: int, **kwargs) -> tuple[float, bool, float]:
    """Play a scripted state trajectory through the task's scorer: (fitness, success, sparse return)."""
    spec = load_task(task)
    env = make_env(spec)
    env.reset(seed=0)
    base, schema = env.unwrapped, schema_for(env)
    scorer_cls = import_from_folder(spec.folder, spec.fitness.scorer)
    scorer = scorer_cls(**{**spec.fitness.kwargs, **kwargs})

    def at(t: int):
        qpos, qvel = base.init_qpos.copy(), np.zeros(base.model.nv)
        pose(t, qpos, qvel)
        base.set_state(qpos, qvel)
        return snapshot(env, base._get_obs(), schema)

    state, sparse, action = at(0), 0.0, np.zeros(env.action_space.shape)
    scorer.reset(state)
    for t in range(1, steps + 1):
        state.freeze()
        next_state = at(t)
        scorer.step(state, action, next_state)
        sparse += scorer.sparse_reward(state, action, next_state)
        state = next_state
    fitness, success = scorer.result()
    env.close()
    return fitness, success, sparse


def run_x(speed: float, dt: float = 0.05) -> Pose:
    def pose(t: int, qpos: np.ndarray, qvel: np.ndarray) -> None:
        qpos[0], qvel[0] = speed * t * dt, speed
    return pose


def test_backward_cheetah_scores_negative_forward_and_positive_backward() -> None:
    fwd, fwd_ok, fwd_sparse = kinematic("halfcheetah-run", run_x(-3.0), 1000)
    back, back_ok, back_sparse = kinematic("halfcheetah-run-backward", run_x(-3.0), 1000)
    assert fwd == pytest.approx(-3.0, abs=0.01) and not fwd_ok and fwd_sparse == 0
    assert back == pytest.approx(3.0, abs=0.01) and back_ok and back_sparse == 1000


@pytest.mark.parametrize("speed, success", [(1.9, False), (2.1, True)])
def test_run_success_flips_at_the_speed_threshold(speed: float, success: bool) -> None:
    assert kinematic("halfcheetah-run", run_x(speed), 1000)[1] is success


def test_flipped_cheetah_stops_counting() -> None:
    def on_its_back(t: int, qpos: np.ndarray, qvel: np.ndarray) -> None:
        run_x(3.0)(t, qpos, qvel)
        qpos[2] = math.pi if t > 100 else 0.0
    fitness, success, _ = kinematic("halfcheetah-run", on_its_back, 1000)
    assert fitness == pytest.approx(3.0 * 100 / 1000, abs=0.01) and not success


def test_standing_still_scores_about_zero() -> None:
    spec = load_task("halfcheetah-run")
    env, scorer = make_env(spec), make_scorer(spec)
    obs, _ = env.reset(seed=0)
    schema = schema_for(env)
    state = snapshot(env, obs, schema)
    scorer.reset(state)
    for _ in range(200):
        state.freeze()
        obs, *_ = env.step(np.zeros(6))
        next_state = snapshot(env, obs, schema)
        scorer.step(state, np.zeros(6), next_state)
        state = next_state
    fitness, success = scorer.result()
    assert abs(fitness) < 0.01 and not success


def test_diving_hopper_does_not_beat_a_steady_one() -> None:
    dt = 0.008

    def dive(t: int, qpos: np.ndarray, qvel: np.ndarray) -> None:
        qpos[0], qpos[1], qpos[2] = 4.0 * t * dt, 1.25 - 0.01 * t, 0.01 * t  # fast, sinking, pitching

    def steady(t: int, qpos: np.ndarray, qvel: np.ndarray) -> None:
        qpos[0], qvel[0] = 1.2 * t * dt, 1.2

    dived, dive_ok, _ = kinematic("hopper-hop", dive, 60)  # the env ends the episode after the fall
    walked, walk_ok, _ = kinematic("hopper-hop", steady, 1000)
    assert walked == pytest.approx(1.2, abs=0.01) and walk_ok
    assert dived < 0.15 and not dive_ok


def spin(rate: float, drift: float = 0.0, roll: float = 0.0) -> Pose:
    def pose(t: int, qpos: np.ndarray, qvel: np.ndarray) -> None:
        yaw, tilt = rate * t * 0.05, roll * t * 0.05
        qpos[0] = drift * t * 0.05
        qz = np.array([math.cos(yaw / 2), 0.0, 0.0, math.sin(yaw / 2)])
        qx = np.array([math.cos(tilt / 2), math.sin(tilt / 2), 0.0, 0.0])
        w1, x1, y1, z1 = qz
        w2, x2, y2, z2 = qx
        qpos[3:7] = [w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2, w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
                     w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2, w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2]
    return pose


def test_spinning_in_place_beats_drifting_or_rolling() -> None:
    in_place, ok, sparse = kinematic("ant-spin", spin(1.0), 1000)
    drifting, drift_ok, _ = kinematic("ant-spin", spin(1.0, drift=0.5), 1000)
    rolling, roll_ok, _ = kinematic("ant-spin", spin(1.0, roll=3.0), 1000)
    assert in_place == pytest.approx(50 / (2 * math.pi), rel=0.01) and ok
    assert drifting < in_place / 5 and not drift_ok
    assert rolling < in_place / 2 and not roll_ok
    assert kinematic("ant-spin", spin(-1.0), 1000)[0] == pytest.approx(in_place, rel=0.01)  # either direction


@pytest.mark.parametrize("rate, success", [(0.6, False), (0.7, True)])  # 5 turns in 50 s needs 0.628 rad/s
def test_spin_success_flips_at_the_turn_threshold(rate: float, success: bool) -> None:
    assert kinematic("ant-spin", spin(rate), 1000)[1] is success


def flip(turns: float, rotate_steps: int = 100, height: float = 1.3) -> Pose:
    def pose(t: int, qpos: np.ndarray, qvel: np.ndarray) -> None:
        qpos[1] = height
        qpos[2] = -2 * math.pi * turns * min(t, rotate_steps) / rotate_steps
    return pose


def test_backflip_counts_landed_backward_turns() -> None:
    landed, ok, sparse = kinematic("hopper-backflip", flip(1.0), 200)
    forward, forward_ok, _ = kinematic("hopper-backflip", flip(-1.0), 200)
    on_its_back, back_ok, _ = kinematic("hopper-backflip", flip(0.5, height=0.3), 200)
    assert landed == pytest.approx(1.0) and ok and sparse > 50
    assert forward == 0.0 and not forward_ok
    assert 0.2 < on_its_back < 0.5 and not back_ok
    brief, brief_ok, _ = kinematic("hopper-backflip", flip(1.0), 105)  # upright only 5 steps (0.04 s) at the end
    assert brief < 1.0 and not brief_ok


def one_leg(lift: bool, speed: float = 0.0) -> Pose:
    def pose(t: int, qpos: np.ndarray, qvel: np.ndarray) -> None:
        qpos[0], qvel[0] = speed * t * 0.008, speed
        if lift:
            qpos[6], qpos[7] = -0.8, -1.6  # left thigh back, knee bent: left foot high in the air
    return pose


def test_one_leg_needs_exactly_one_foot_up_and_standing_still() -> None:
    assert kinematic("walker2d-one-leg", one_leg(True), 1000)[:2] == (1.0, True)
    assert kinematic("walker2d-one-leg", one_leg(False), 1000)[:2] == (0.0, False)
    assert kinematic("walker2d-one-leg", one_leg(True, speed=1.0), 1000)[:2] == (0.0, False)
    fraction, ok, _ = kinematic("walker2d-one-leg", one_leg(True), 400)  # fell after 400 of 1000 steps
    assert fraction == pytest.approx(0.4) and not ok


@pytest.mark.parametrize("offset, success", [(0.0, True), (0.015, True), (0.03, False)])
def test_reacher_success_at_distance_threshold(offset: float, success: bool) -> None:
    def pose(t: int, qpos: np.ndarray, qvel: np.ndarray) -> None:
        qpos[:2], qpos[2:4] = 0.0, [0.21 + offset, 0.0]  # fingertip rests at (0.21, 0)
    fitness, ok, _ = kinematic("reacher-reach", pose, 50)
    assert fitness == pytest.approx(-offset, abs=1e-6) and ok is success


def test_balance_is_the_fraction_of_time_upright() -> None:
    def falls_at_50(t: int, qpos: np.ndarray, qvel: np.ndarray) -> None:
        qpos[1] = 0.0 if t < 50 else 1.5
    assert kinematic("inverted-double-pendulum-balance", falls_at_50, 100, episode_steps=100)[:2] == (0.49, False)
    assert kinematic("inverted-double-pendulum-balance", lambda t, q, v: None, 100, episode_steps=100)[:2] == (1.0, True)


def test_human_normalized_arithmetic() -> None:
    assert human_normalized(method=3.0, human=5.0, sparse=1.0) == pytest.approx(0.5)
    assert human_normalized(method=-1.0, human=-5.0, sparse=-3.0) == pytest.approx(1.0)
    assert human_normalized(method=2.0, human=1.0, sparse=1.0) is None
    assert human_normalized(method=2.0, human=1.0 + 1e-15, sparse=1.0) is None
    assert human_normalized(method=2.0, human=float("nan"), sparse=1.0) is None


def test_a_planted_pyc_never_stands_in_for_the_trusted_scorer(tmp_path):
    """A run folder holds a copy of the scorer module; a `.pyc` beside it that matches the source's size and mtime
    (what Python's cache checks) would be loaded instead of the source by a plain import. The scorer is always
    compiled from its source, and no `__pycache__` is written beside it."""
    import importlib.util
    from importlib._bootstrap_external import _code_to_timestamp_pyc  # the format Python's own cache writes

    source = tmp_path / "judge.py"
    source.write_text("FITNESS = 1.0\n")
    forged = compile("FITNESS = 9e9\n", str(source), "exec")
    stat = source.stat()
    cached = Path(importlib.util.cache_from_source(str(source)))
    cached.parent.mkdir()
    cached.write_bytes(_code_to_timestamp_pyc(forged, stat.st_mtime, stat.st_size))
    assert import_from_folder(tmp_path, "judge:FITNESS") == 1.0
    cached.unlink()
    import_from_folder(tmp_path, "judge:FITNESS")
    assert not cached.exists()
