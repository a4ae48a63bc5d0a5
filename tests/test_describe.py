"""The environment description: names the model, labels the observation, never leaks the env's reward."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from rewardsmith.reward.state import schema_for
from rewardsmith.stages.env_description import describe, sign_words
from rewardsmith.task import ENVS_DIR, load_task, make_env, read_task

# the Gymnasium MuJoCo v5 starter suite; the other families are described in tests/test_families.py
SPECS = sorted(p.stem for p in ENVS_DIR.glob("*.toml") if read_task(p).env.endswith("-v5"))
REWARD_WORDS = ("reward_", "ctrl_cost", "contact_cost", "penalty", "forward_reward", "healthy_reward", "weight")


@pytest.fixture(scope="module")
def texts() -> dict[str, str]:
    return {name: describe(load_task(name)) for name in SPECS}


@pytest.mark.parametrize("name", SPECS)
def test_names_every_joint_and_actuator(texts: dict[str, str], name: str) -> None:
    env = make_env(load_task(name))
    env.reset(seed=0)
    schema = schema_for(env)
    text = texts[name]
    for joint in schema.joints:
        assert f"- {joint}:" in text, joint
    for actuator in schema.actuator_names:
        assert f"-> {actuator} ->" in text, actuator


@pytest.mark.parametrize("name", SPECS)
def test_never_mentions_the_native_reward(texts: dict[str, str], name: str) -> None:
    env = make_env(load_task(name))
    env.reset(seed=0)
    _, _, _, _, info = env.step(env.action_space.sample())
    text = texts[name].lower()
    reward_keys = [k for k in info if any(w in k for w in ("reward", "cost", "penalty"))]
    assert reward_keys, "the env should expose reward terms in info, or this test checks nothing"
    for word in [*reward_keys, *REWARD_WORDS]:
        assert word not in text, word


def test_halfcheetah_observation_fully_named(texts: dict[str, str]) -> None:
    text = texts["halfcheetah-run"]
    assert "## Observation layout (17 of 17 dims named)" in text
    assert "- obs[0:8] = qpos[1:9] (rootz, rooty, bthigh, bshin, bfoot, fthigh, fshin, ffoot)" in text
    assert "- obs[8:17] = qvel[0:9] (rootx, rootz" in text
    assert "state.body(\"torso\")" in text and "dt = 0.05 s" in text and "1000 steps" in text


def test_ant_summarises_contact_forces_compactly(texts: dict[str, str]) -> None:
    text = texts["ant-run"]
    assert "## Observation layout (105 of 105 dims named)" in text
    assert "- obs[27:105] = clip(cfrc_ext, -1, 1) (tx/ty/tz/fx/fy/fz for each of: torso," in text
    assert len(text) < 2500 * 4  # well under 2,500 tokens
    assert "[0.2, 1]" in text  # the termination height range


def test_other_layouts_and_termination_rules(texts: dict[str, str]) -> None:
    assert "- obs[8:10] = body pos fingertip - target (x, y)" in texts["reacher-reach"]
    assert "obs[14:23] = body pos (tips_arm.x" in texts["pusher-push"]
    assert "obs[8] = clip(qfrc_constraint, -10, 10)[0] (slider)" in texts["inverted-double-pendulum-balance"]
    assert "qpos[2] (rooty, pitch, rad) in [-0.2, 0.2]" in texts["hopper-hop"]
    assert "never ends early (falls do not end the episode)" in texts["hopper-backflip"]
    assert "never ends early; episodes end at the time limit" in texts["halfcheetah-run"]


ENV_MODULE = '''
import gymnasium as gym
import numpy as np

class Bandit(gym.Env):
    observation_space = gym.spaces.Box(-1.0, 1.0, (3,), np.float32)
    action_space = gym.spaces.Box(-2.0, 2.0, (2,), np.float32)

    def reset(self, seed=None, options=None):
        super().reset(seed=seed)
        return np.zeros(3, np.float32), {}

    def step(self, action):
        return np.zeros(3, np.float32), 0.0, False, False, {}
'''


def test_non_mujoco_env_gets_an_obs_only_description(tmp_path: Path) -> None:
    (tmp_path / "bandit.py").write_text(ENV_MODULE)
    (tmp_path / "bandit.toml").write_text(
        'name = "bandit"\nenv = "bandit:Bandit"\ndescription = "Pick the best arm, every time."\n'
        '[fitness]\nscorer = "scorers:Nope"\n')
    text = describe(load_task(tmp_path / "bandit.toml"))
    assert "bandit:Bandit" in text and "Observation: 3 dims" in text and "Action: 2 dims, each in [-2, 2]" in text
    assert "read `state.obs` only" in text and "state.body" not in text
    assert np.isfinite(len(text)) and "## Joints" not in text


def _joint_line(text: str, joint: str) -> str:
    """The joint's line, with a shared axis (`; axis A`) replaced by its entry in the axis key."""
    line = next(line for line in text.splitlines() if line.startswith(f"- {joint}:"))
    key = re.search(r"; axis ([A-Z])$", line)
    if key:
        entry = next(x for x in text.splitlines() if x.startswith(f"- axis {key.group(1)}: "))
        line = line[: key.start()] + "; axis " + entry.split(": ", 1)[1]
    return line


def test_backflip_description_settles_the_sign_of_a_backward_rotation(texts: dict[str, str]) -> None:
    """A reader decides from the text which sign of rooty is backward; the physics agrees, and so does the scorer."""
    import mujoco

    from rewardsmith.task import make_scorer

    line = _joint_line(texts["hopper-backflip"], "rooty")
    said = "+x" if "pitches the body's top toward +x" in line else "-x" if "top toward -x" in line else None
    assert said is not None, line
    backward_sign = -1 if "backward rotation (backflip) makes it decrease" in line else +1
    assert "makes it" in line
    env = make_env(load_task("hopper-backflip"))
    env.reset(seed=0)
    base = env.unwrapped
    qpos = base.init_qpos.copy()
    qpos[2] = 0.3  # rooty positive
    base.set_state(qpos, base.init_qvel)
    mujoco.mj_forward(base.model, base.data)
    top_x = base.data.xmat[base.model.body("torso").id].reshape(3, 3)[0, 2]  # torso up axis, x component
    assert (top_x > 0) == (said == "+x")
    assert backward_sign == (-1 if said == "+x" else +1)
    assert make_scorer(load_task("hopper-backflip")).backward == backward_sign  # the trusted scorer agrees
    assert "Hinge angles are not wrapped" in texts["hopper-backflip"]


def test_reset_pose_noise_and_feet(texts: dict[str, str]) -> None:
    text = texts["hopper-hop"]
    assert "torso (0, 0, 1.25)" in text
    assert "reset noise: qpos and qvel each + uniform(-0.005, 0.005) per entry" in text
    assert "foot_geom on foot" in text
    walker = texts["walker2d-one-leg"]
    assert "foot_geom on foot" in walker and "foot_left_geom on foot_left" in walker


@pytest.mark.parametrize("name", SPECS)
def test_every_hinge_and_slide_has_its_axis_and_sign(texts: dict[str, str], name: str) -> None:
    env = make_env(load_task(name))
    env.reset(seed=0)
    for joint in schema_for(env).joints.values():
        line = _joint_line(texts[name], joint.name)
        if joint.kind in ("hinge", "slide"):
            assert "-> world " in line and "positive " in line, line


def test_a_hinge_names_only_the_directions_it_turns():
    """Shadow Hand's wrist axis is -z up to rounding: +z does not move about it, so the words must not say it
    "turns toward (0.00, 0.00, 0.00)" (they did); they name the two directions that do turn."""
    words = sign_words("hinge", np.array([0.0003, 0.001, -0.99999]))
    assert words == "positive rotates by the right-hand rule about -z: +x turns toward -y, +y turns toward +x"
    assert "(0.00, 0.00, 0.00)" not in describe(load_task("shadowhand-block-rotate-z"))


def test_manipulation_is_read_from_the_scene_not_from_the_spec() -> None:
    """A loose free body or a mocap target makes a scene one of manipulation; a robot's free root does not, whatever
    the spec imports."""
    import mujoco

    from rewardsmith.stages.obs_layouts import handles_objects

    legs = """<body name="torso"><freejoint/><geom size=".1"/>
        <body name="leg"><joint name="hip" type="hinge"/><geom type="capsule" size=".05" fromto="0 0 0 .2 0 0"/></body></body>"""
    robot = f"<mujoco><worldbody>{legs}</worldbody><actuator><motor joint='hip'/></actuator></mujoco>"
    box = '<body name="box" pos="1 0 0"><freejoint/><geom type="box" size=".05 .05 .05"/></body>'
    with_box = robot.replace("</worldbody>", box + "</worldbody>")
    mocap = robot.replace("</worldbody>", '<body name="target" mocap="true"><geom size=".01"/></body></worldbody>')
    assert not handles_objects(mujoco.MjModel.from_xml_string(robot))
    assert handles_objects(mujoco.MjModel.from_xml_string(with_box))
    assert handles_objects(mujoco.MjModel.from_xml_string(mocap))
