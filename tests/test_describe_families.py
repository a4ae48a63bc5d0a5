"""The printed facts of each family, checked against the env itself: axes after reset, the gripper's direction
found by stepping it, observation spans, action semantics, termination, and the scorer behind `success`."""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

import numpy as np
import pytest

from rewardsmith.reward.state import schema_for
from rewardsmith.stages.designer import fitness_unit
from rewardsmith.stages.env_description import describe
from rewardsmith.task import ENVS_DIR, list_tasks, load_task, make_env


def _env(name: str):
    env = make_env(load_task(name))
    env.reset(seed=0)
    return env


def _line(text: str, start: str) -> str:
    return next(line for line in text.splitlines() if line.startswith(start))


def _finger_after(env, joint: str, grip: float, steps: int = 10) -> float:
    env.reset(seed=0)
    action = np.zeros(env.action_space.shape, dtype=np.float32)
    action[3] = grip
    for _ in range(steps):
        env.step(action)
    return float(env.unwrapped.data.qpos[env.unwrapped.model.joint(joint).qposadr[0]])


def test_metaworld_axes_are_read_after_reset_and_the_fingers_direction_by_stepping() -> None:
    text = describe(load_task("metaworld-peg-insert-side"))
    env = _env("metaworld-peg-insert-side")
    base = env.unwrapped
    j = base.model.joint("r_close")
    world = base.data.xmat[j.bodyid[0]].reshape(3, 3) @ base.model.jnt_axis[j.id]  # the reset state, not qpos0
    shown = ", ".join(f"{c + 0.0:.2f}" for c in np.round(world, 2))
    assert f"world ({shown})" in text
    assert "their qpos is the opening" not in text and "right_j0" not in text  # the mocap arm's joints are left out
    closing, opening = _finger_after(env, "r_close", +1.0), _finger_after(env, "r_close", -1.0)
    assert closing > opening  # Meta-World: +1 closes, and r_close grows as it does
    assert "grows as the gripper closes" in _line(text, "- r_close (qpos[")
    assert "shrinks as the gripper closes" in _line(text, "- l_close (qpos[")
    assert "- hand frame: body `hand`" in text and "rightEndEffector and leftEndEffector" in text


def test_fetch_fingers_shrink_as_they_close_and_fetch_push_ignores_the_gripper() -> None:
    text = describe(load_task("fetch-pick-and-place"))
    env = _env("fetch-pick-and-place")
    joint = "robot0:r_gripper_finger_joint"
    assert _finger_after(env, joint, -1.0) < _finger_after(env, joint, +1.0)  # Fetch: -1 closes
    assert "shrinks as the gripper closes" in _line(text, f"- {joint} (qpos[")
    push = describe(load_task("fetch-push"))
    env = _env("fetch-push")
    assert _finger_after(env, joint, -1.0) == pytest.approx(_finger_after(env, joint, +1.0), abs=1e-4)
    assert "the gripper action action[3] is ignored by this env (block_gripper)" in push


def test_adroit_door_spans_and_position_servo_actions() -> None:
    text = describe(load_task("adroit-door"))
    env = _env("adroit-door")
    base = env.unwrapped
    obs = np.asarray(base._get_obs())
    grasp, handle = (base.data.site_xpos[base.model.site(s).id] for s in ("S_grasp", "S_handle"))
    assert np.allclose(obs[35:38], grasp - handle)
    assert "- obs[35:38] = palm - handle" in text and "- obs[38] = door-open flag" in text
    assert obs[38] == (1.0 if base.data.qpos[base.model.joint("door_hinge").qposadr[0]] > 1.0 else -1.0)
    assert "Position servos: each action value in [-1, 1] is a position target" in text
    ctrl_lo, ctrl_hi = base.model.actuator_ctrlrange[0]
    env.step(np.full(env.action_space.shape, -1.0, dtype=np.float32))
    assert base.data.ctrl[0] == pytest.approx(ctrl_lo)  # -1 maps onto the low end of the control range
    assert "for each of: )" not in text and "backflip" not in text  # no garbled label, no backflip on a hand
    assert "unlabelled" not in text


def test_adroit_hammer_spans() -> None:
    text = describe(load_task("adroit-hammer"))
    env = _env("adroit-hammer")
    env.step(env.action_space.sample())
    base = env.unwrapped
    obs = np.asarray(base._get_obs())
    assert np.allclose(obs[27:33], np.clip(base.data.qvel[-6:], -1, 1))
    assert "- obs[27:33] = clip(qvel[-6:], -1, 1): the hammer's velocity" in text
    assert "- obs[45] = nail-impact sensor" in text and "obs[39] is its x-rotation" in text


@pytest.mark.parametrize(
    ("task", "rule"),
    [
        ("mountaincar-reach-flag", "reaches the flag (position >= 0.45): a success termination"),
        ("lunarlander-land", "on a crash (the body touches the ground), when |obs[0]| >= 1"),
        ("bipedalwalker-walk", "when the hull touches the ground"),
        ("pendulum-swing-up", "never ends early"),
        ("pendulum-hold-tilted", "never ends early"),
        ("acrobot-swing-up", "height above the pivot exceeds 1 m"),
        ("mountaincar-discrete-reach-flag", "reaches the flag (position >= 0.5): a success termination"),
        ("cartpole-hold-right", "|pole angle| > 0.2095 rad or |cart position| > 2.4"),
    ],
)
def test_envs_without_a_model_state_their_termination(task: str, rule: str) -> None:
    text = describe(load_task(task))
    assert rule in _line(text, "- Early termination: ")
    assert not re.search(r"\d\.\d{6,}", text)  # bounds rounded, no float32 artefacts
    assert " 1 dims" not in text  # the pendulums' one action dim is "1 dim"


def test_pendulums_layout_does_not_name_the_goal() -> None:
    """The layout is the env's, shared by every task on it: "theta = 0 is upright (the goal)" was false for
    pendulum-hold-tilted, whose goal is theta = +0.3 (its task text says so)."""
    text = describe(load_task("pendulum-hold-tilted"))
    assert "theta = 0 is upright" in text and "goal" not in text


def test_mountaincar_ends_at_the_flag_as_described() -> None:
    env = _env("mountaincar-reach-flag")
    env.unwrapped.state = np.array([0.449, 0.02])
    _, _, terminated, _, _ = env.step(np.array([1.0], dtype=np.float32))
    assert terminated and env.unwrapped.state[0] >= 0.45


def test_lunarlander_side_boosters_move_as_described() -> None:
    text = describe(load_task("lunarlander-land"))
    assert "below -0.5 fires the left booster (pushes toward -x: vx decreases, and obs[4] increases)" in text
    env = _env("lunarlander-land")

    def after(side: float) -> np.ndarray:
        obs, _ = env.reset(seed=0)
        start = obs
        for _ in range(5):
            obs, *_ = env.step(np.array([-1.0, side], dtype=np.float32))
        return obs - start

    left, none = after(-1.0), after(0.0)
    assert left[2] < none[2] and left[4] > none[4]
    assert "obs[0] = -0.2 and +0.2" in text and "crash" in text


def test_a_discrete_lunarlander_is_told_its_four_choices_and_each_moves_as_described(tmp_path: Path) -> None:
    """LunarLander-v3's default action is one of 4 choices; its description printed the continuous action's
    `action[0]`, `action[1]` thresholds, which a discrete action does not have."""
    (tmp_path / "lander.toml").write_text(
        'name = "lander"\nenv = "LunarLander-v3"\ndescription = "Land on the pad."\n'
        '[fitness]\nscorer = "scorers:FinalDistance"\n'
    )
    text = describe(load_task(tmp_path / "lander.toml"))
    assert "- Action: one of 4 discrete choices, 0 to 3" in text and "action[0]" not in text
    assert "1 = the left booster (pushes toward -x: vx decreases, and obs[4] increases)" in text
    env = make_env(load_task(tmp_path / "lander.toml"))

    def after(choice: int) -> np.ndarray:
        obs, _ = env.reset(seed=0)
        start = obs
        for _ in range(5):
            obs, *_ = env.step(choice)
        return obs - start

    none, left, main, right = (after(c) for c in range(4))
    assert left[2] < none[2] and left[4] > none[4]  # the left booster: vx down, obs[4] up
    assert right[2] > none[2] and right[4] < none[4]  # the right one: the reverse
    assert main[3] > none[3]  # the main engine slows the fall


def test_pendulum_gets_its_action_and_semantics(tmp_path: Path) -> None:
    (tmp_path / "pendulum-up.toml").write_text(
        'name = "pendulum-up"\nenv = "Pendulum-v1"\ndescription = "Swing the pendulum up."\n'
        '[fitness]\nscorer = "scorers:FinalDistance"\n'
    )
    text = describe(load_task(tmp_path / "pendulum-up.toml"))
    assert "- action[0] = torque (N m) in [-2, 2]; positive torque increases theta_dot" in text
    assert "theta = 0 is upright" in text and "theta ~ uniform(-pi, pi)" in text
    assert "- Early termination: never ends early" in text
    env = make_env(load_task(tmp_path / "pendulum-up.toml"))
    env.reset(seed=0)
    env.unwrapped.state = np.array([0.5, 0.0])
    obs, *_ = env.step(np.array([2.0], dtype=np.float32))
    assert obs[2] > 0  # positive torque increases theta_dot (gravity at theta 0.5 pushes the same way, so also check)
    env.unwrapped.state = np.array([-0.5, 0.0])
    obs, *_ = env.step(np.array([2.0], dtype=np.float32))
    assert obs[2] > -0.2  # against gravity's pull toward -theta, +2 N m still wins over one step from rest


def test_a_discrete_action_is_described_as_choices_with_what_each_does() -> None:
    text = describe(load_task("acrobot-swing-up"))
    assert "- Action: one of 3 discrete choices, 0 to 2" in text and "dims" not in _line(text, "- Action:")
    assert "- action 0 = torque -1, 1 = no torque, 2 = torque +1" in text and "`int(action)` gives it" in text
    assert "- at reset: theta1, theta2 and both angular velocities" in text and "a success termination" in text
    env = _env("acrobot-swing-up")

    def elbow_speed(action: int) -> float:
        env.reset(seed=0)
        obs, *_ = env.step(action)
        return float(obs[5])

    assert elbow_speed(2) > elbow_speed(1) > elbow_speed(0)  # positive torque increases theta2_dot
    height = lambda o: -o[0] - (o[0] * o[2] - o[1] * o[3])  # noqa: E731 - the formula the description prints
    env.reset(seed=0)
    env.unwrapped.state = np.array([np.pi - 0.3, 0.0, 0.0, 0.0])  # link 1 nearly up: the end is above the bar
    obs, _, terminated, *_ = env.step(1)
    assert terminated and height(obs) > 1.0


def test_button_press_prints_no_range_that_makes_the_task_look_impossible() -> None:
    line = _line(describe(load_task("metaworld-button-press")), "- btnbox_joint:")
    assert "soft limit" in line and "0.073" in line


THRESHOLDS = (
    "success_distance",
    "success_speed",
    "min_height",
    "max_tilt",
    "success_angle",
    "min_qpos",
    "max_distance",
    "hold_steps",
    "success_turns",
    "max_drift",
)


@pytest.mark.parametrize("name", sorted(s.name for s in list_tasks(ENVS_DIR)))
def test_success_names_the_scorers_own_threshold_and_target(name: str) -> None:
    """The success sentence states each threshold the scorer's kwargs set, and a Meta-World goal task names the
    goal (obs[36:39]) that the scorer measures to (peg-insert-side once said "the hole", 0.066 m off)."""
    spec = load_task(name)
    kwargs = spec.fitness.kwargs
    text = spec.success or ""
    for key in THRESHOLDS:
        if key in kwargs:
            assert f"{kwargs[key]:g}" in text, (key, kwargs[key], text)
    if spec.fitness.scorer.endswith("MetaWorldGoal"):
        assert "goal" in text and "hole" not in text.split("goal")[0]
        if kwargs.get("weights"):
            assert "weighted" in text and str([round(w) for w in kwargs["weights"]]).replace(".0", "") in text
        if kwargs.get("point") not in (None, "object", "tcp", "hand"):
            assert kwargs["point"] in text


@pytest.mark.parametrize(
    "name", sorted(s.name for s in list_tasks(ENVS_DIR) if s.fitness.scorer.endswith("MetaWorldGoal"))
)
def test_a_meta_world_fitness_line_states_the_scorers_point_axes_and_weights(name: str) -> None:
    """The fitness line the model reads is generated from the scorer's own kwargs: door-open's says "along x"
    (the scorer ignores y and z), peg-insert-side's names its weights, reach's names the fingertips' centre (not
    Meta-World's word "tcp")."""
    spec = load_task(name)
    kwargs, unit = spec.fitness.kwargs, fitness_unit(spec) or ""
    axes = kwargs.get("axes", [0, 1, 2])
    assert ("along " + " and ".join("xyz"[a] for a in axes) in unit) == (axes != [0, 1, 2]), unit
    for weight in kwargs.get("weights", []):
        assert weight == 1.0 or f"({weight:g} d" in unit, unit
    assert f"within {kwargs['success_distance']:g} m" in unit and "obs[36:39]" in unit and "tcp" not in unit


@pytest.mark.parametrize(
    "name, markers",
    [
        ("fetch-reach", "site target0"),
        pytest.param(
            "shadowhand-block-rotate-z", "site target:center, body target, joint target:joint", marks=pytest.mark.slow
        ),
    ],
)
def test_goal_markers_that_move_only_when_rendering_are_named_and_not_shown_as_examples(name, markers) -> None:
    """Fetch's `target0` site is moved to the goal only by `render()`: in training it stays put, far from
    `state.goal`. The description says so, and its State API example reads another site."""
    spec = load_task(name)
    env = make_env(spec)
    obs, _ = env.reset(seed=0)
    for _ in range(3):
        obs, *_ = env.step(env.action_space.sample())
    base = env.unwrapped
    marker = base.data.site("target0" if name.startswith("fetch") else "target:center").xpos
    assert np.linalg.norm(marker - obs["desired_goal"][:3]) > 0.05  # the fact the line warns about
    env.close()
    text = describe(spec)
    section = text.split("## Goal markers that move only when the env renders\n")[1].split("\n")[0]
    assert section.startswith(f"- {markers}: ") and "`state.goal`" in section
    assert 'state.site("target' not in text and 'state.body("target")' not in text


def test_an_env_without_a_render_callback_has_no_goal_marker_section() -> None:
    assert "## Goal markers" not in describe(load_task("metaworld-reach"))


def test_the_describe_names_what_the_state_api_has_for_contacts() -> None:
    text = describe(load_task("hopper-hop"))
    assert "has no contact list" not in text and "`state.touching(a, b=None)`" in text
    assert schema_for(_env("hopper-hop")) is not None


DOCUMENTED = sorted(
    s.name for s in list_tasks(ENVS_DIR) if s.env.split("-")[0] in {"FetchReach", "FetchPush", "FetchPickAndPlace"}
    or s.env.startswith(("Meta-World", "metaworld", "LunarLander", "BipedalWalker", "CartPole", "Pendulum", "Acrobot",
                         "MountainCar", "HandManipulate"))
)  # fmt: skip
"""Shipped tasks whose observation layout comes from the env's documentation (`obs_layouts.KNOWN_LAYOUTS`)."""


@pytest.mark.parametrize(
    "name",
    [  # Meta-World's envs take a second or two each to build: one in the fast set, the rest in the slow one
        pytest.param(n, marks=pytest.mark.slow) if n.startswith("metaworld") and n != "metaworld-reach" else n
        for n in DOCUMENTED
    ],
)
def test_a_documented_layout_spans_exactly_the_envs_observation(name: str) -> None:
    """The printed `obs[a:b]` lines end where the env's observation ends (FetchReach has no object: 10 dims, not
    Fetch's 25), and a Fetch env's obs[0:3] and achieved_goal are what the description says they are."""
    text = describe(load_task(name))
    env = _env(name)
    obs, _ = env.reset(seed=0)
    flat = np.asarray(obs["observation"] if isinstance(obs, dict) else obs)
    ends = [int(b or a) + (0 if b else 1) for a, b in re.findall(r"^- obs\[(\d+)(?::(\d+))?\] = ", text, re.M)]
    assert ends and max(ends) == flat.shape[0], (name, max(ends), flat.shape)
    if name.startswith("fetch"):
        base = env.unwrapped
        gripper = base._utils.get_site_xpos(base.model, base.data, "robot0:grip")
        assert np.allclose(flat[0:3], gripper)
        object_is_goal = name != "fetch-reach"
        assert np.allclose(obs["achieved_goal"], flat[3:6] if object_is_goal else gripper)
        expected = "the object's position" if object_is_goal else "the gripper position xyz (the same as obs[0:3]"
        assert f"- achieved_goal = {expected}" in text


def test_reset_noise_is_measured_where_the_tool_does_not_know_it() -> None:
    """Adroit's reset moves the nail board and the door frame through the model (`body_pos`), not the state: the
    description says which, with the ranges seen, and leaves the env as a reset with its seed does."""
    from rewardsmith.stages.reset_noise import measure_resets

    hammer, door = describe(load_task("adroit-hammer")), describe(load_task("adroit-door"))
    assert "noise unknown" not in hammer and "noise unknown" not in door
    noise = _line(hammer, "- reset noise: measured over 8 resets")
    assert "qpos and qvel: none" in noise and "body nail_board at random (world frame, m): z in [" in noise
    low, high = (float(v) for v in re.search(r"z in \[([-\d.]+), ([-\d.]+)\]", noise).groups())
    assert 0.1 <= low < high <= 0.25  # the env draws the board's height from U[0.1, 0.25]
    assert re.search(r"body frame at random \(world frame, m\): x in \[.*\], y in \[.*\], z in \[", door)
    assert "## Ground contact" not in hammer and "## Ground contact" not in door  # the floor lies 0.95 m below the hand
    env, fresh = _env("adroit-hammer"), _env("adroit-hammer")
    env.reset(seed=3)
    measure_resets(env.unwrapped, schema_for(env), seed=3)
    fresh.reset(seed=3)
    assert np.array_equal(env.unwrapped.model.body_pos, fresh.unwrapped.model.body_pos)
    assert np.array_equal(env.unwrapped.data.qpos, fresh.unwrapped.data.qpos)


def test_a_robot_that_collides_with_nothing_gets_no_ground_contact_section() -> None:
    # Swimmer-v5 (a user's env): every geom has contype and conaffinity 0; the section used to read
    # "touching or nearest the floor at reset: ." and offer contact calls that never fire
    spec = load_task("ant-spin").model_copy(update={"name": "swimmer-spin", "env": "Swimmer-v5"})
    text = describe(spec)
    assert "## Ground contact" not in text and "floor at reset: ." not in text
    assert "## Reset pose" in text and "torso (0, 0, 0)" in text


def test_measured_reset_noise_of_a_users_env_bounds_what_varies() -> None:
    """A MuJoCo env whose noise the tool does not know (Humanoid: qpos and qvel each + U[-0.01, 0.01]) is described
    by what varied, within the env's own bound."""
    import gymnasium as gym

    from rewardsmith.stages.reset_noise import measure_resets, reset_noise_text

    env = gym.make("Humanoid-v5")
    env.reset(seed=0)
    base = env.unwrapped
    text = reset_noise_text(measure_resets(base, schema_for(env), 0), base.init_qpos, base.init_qvel)
    found = re.search(
        r"qpos: 24 of 24 entries vary, each within ±([\d.]+) of the pose above; qvel: 23 of 23 entries vary, each within ±([\d.]+) of 0$",
        text,
    )
    assert found and all(0.005 < float(v) <= 0.01 for v in found.groups()), text


def test_a_humanoids_observation_is_labelled_in_full() -> None:
    """Humanoid-v5 (a user's env: no shipped task) observes MuJoCo's cinert, cvel, qfrc_actuator and cfrc_ext of
    every body: matching names all 348 dims, and each span equals the named quantity in a stepped state."""
    import gymnasium as gym

    from rewardsmith.stages.obs_labels import label_observation, obs_lines

    env = gym.make("Humanoid-v5")
    env.reset(seed=0)
    lines = obs_lines(label_observation(env, schema_for(env)))
    assert not any("unlabelled" in line for line in lines)
    assert "- obs[45:175] = cinert (Ixx/Iyy/Izz/Ixy/Ixz/Iyz/mx/my/mz/m for each of: torso," in "\n".join(lines)
    assert any(line.startswith("- obs[175:253] = cvel (wx/wy/wz/vx/vy/vz for each of: torso,") for line in lines)
    assert any(line.startswith("- obs[253:270] = qfrc_actuator[6:23] (abdomen_z,") for line in lines)
    env.reset(seed=1)
    obs, *_ = env.step(env.action_space.sample())
    data = env.unwrapped.data
    assert np.allclose(obs[45:175], data.cinert[1:].ravel()) and np.allclose(obs[175:253], data.cvel[1:].ravel())
    assert np.allclose(obs[253:270], data.qfrc_actuator[6:])


def test_a_maze_env_is_described_through_the_mujoco_env_it_wraps(tmp_path: Path, monkeypatch) -> None:
    """PointMaze (a user's env: no shipped task) keeps its MuJoCo state, reset pose and control step on the point env
    it wraps, and builds its dict observation from that env's: the description reads them there (it crashed on the
    outer env's missing `init_qpos`), labels `state.obs` as the ball's qpos and qvel, and `state.dt` is the inner
    env's step, not 1.0."""
    import gymnasium as gym
    import gymnasium_robotics

    from rewardsmith.reward.state import control_period, physics_env
    from rewardsmith.stages.obs_labels import label_observation, obs_lines

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # gym.make of a maze writes its model file there
    gym.register_envs(gymnasium_robotics)
    env = gym.make("PointMaze_UMaze-v3")
    env.reset(seed=0)
    inner = env.unwrapped.point_env
    assert physics_env(env.unwrapped) is inner
    assert control_period(env) == (inner.dt, "the env's `dt`") and inner.dt == pytest.approx(0.01)
    assert obs_lines(label_observation(env, schema_for(env))) == [
        "- obs[0:2] = qpos[0:2] (ball_x, ball_y)",
        "- obs[2:4] = qvel[0:2] (ball_x, ball_y)",
    ]
    (tmp_path / "maze_scorer.py").write_text(
        "from rewardsmith.reward.fitness import EpisodeScorer\n\nclass Score(EpisodeScorer):\n    pass\n"
    )
    spec = tmp_path / "maze.toml"
    spec.write_text(
        'name = "maze"\nenv = "PointMaze_UMaze-v3"\nimports = ["gymnasium_robotics"]\ndescription = "Reach the goal."\n'
        'success = "within 0.45 m of the goal"\n[fitness]\nscorer = "maze_scorer:Score"\n'
    )
    text = describe(load_task(str(spec)))
    assert "- Control step dt = 0.01 s" in text and "obs[2:4] = qvel[0:2]" in text
    assert "## Initial pose of the wrapped env (qvel 0; each reset places it anew" in text  # not "before noise"
    # the walls, as a map whose cell coordinates are the env's own (cell_rowcol_to_xy)
    assert "\n  #####\n  #...#\n  ###.#\n  #...#\n  #####\n" in text
    assert "cell (row i, column j) is centred at x = -2 + 1·j, y = 2 - 1·i (m)" in text
    assert list(env.unwrapped.maze.cell_rowcol_to_xy(np.array([3, 1]))) == [-2 + 1 * 1, 2 - 1 * 3]
    assert "(manipulation)" not in text and "- Contacts: `state.touching(a, b=None)`" in text  # walked, not gripped


def test_a_maze_env_leaves_no_model_file_in_the_temp_folder(tmp_path: Path, monkeypatch) -> None:
    """gymnasium-robotics' maze envs write `ant_maze<time>.xml` into the temp folder on every build and never remove
    it (471 such files had piled up in this machine's /tmp); `make_env` removes it once the model is loaded."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    (tmp_path / "maze_scorer.py").write_text(
        "from rewardsmith.reward.fitness import EpisodeScorer\n\nclass Score(EpisodeScorer):\n    pass\n"
    )
    (tmp_path / "maze.toml").write_text(
        'name = "maze"\nenv = "PointMaze_UMaze-v3"\nimports = ["gymnasium_robotics"]\ndescription = "Reach the goal."\n'
        'success = "within 0.45 m of the goal"\n[fitness]\nscorer = "maze_scorer:Score"\n'
    )
    env = make_env(load_task(str(tmp_path / "maze.toml")))
    env.reset(seed=0)
    env.step(env.action_space.sample())
    assert env.unwrapped.tmp_xml_file_path.startswith(str(tmp_path))  # it was written where this test looks
    assert not list(tmp_path.glob("ant_maze*.xml"))


def test_bounds_that_every_dim_shares_print_once() -> None:
    from rewardsmith.stages.env_description import _bounds

    assert _bounds(np.zeros(6), np.full(6, 255.0)) == "bounds: each dim in [0, 255]"
    assert _bounds(np.array([-1.0, 0.0]), np.array([1.0, 3.14199996])) == "bounds low [-1, 0], high [1, 3.142]"


def test_a_maze_map_names_the_goal_and_reset_cells_it_fixes() -> None:
    from types import SimpleNamespace

    from rewardsmith.stages.env_maze import maze_lines

    fixed = SimpleNamespace(maze_map=[[1, 1, 1], [1, "r", 1], [1, "g", 1], [1, "c", 1]], maze_size_scaling=1.0,
                            x_map_center=1.5, y_map_center=2.0)  # fmt: skip
    lines = maze_lines(SimpleNamespace(maze=fixed))
    assert lines[0].startswith("## Maze (4 rows x 3 columns; `#` wall, `.` free, `g` a goal cell, `r` a reset cell;")
    assert lines[2:] == ["  ###", "  #r#", "  #g#", "  #.#"]
    assert maze_lines(SimpleNamespace()) == []  # no maze: no section
