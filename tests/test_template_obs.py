"""The offline model's template on envs without a MuJoCo model: its task terms come from the
description's labelled observation dimensions, pass the template's own check and run on real states."""

from __future__ import annotations

import numpy as np
import pytest

from rewardsmith.llm.local import close_function, example_lines, task_names
from rewardsmith.llm.template import component_line, observation_dims, observation_lines, reads_state
from rewardsmith.reward.state import Snapshotter
from rewardsmith.stages.designer import Designer
from rewardsmith.stages.env_description import describe
from rewardsmith.task import load_task, make_env

EXPECTED = {  # task -> the observation-reading components its template must offer
    "bipedalwalker-walk": {"forward_speed": "obs[2]", "level": "obs[0]"},
    "lunarlander-land": {"over_pad": "obs[0]", "height_above_pad": "obs[1]", "level": "obs[4]", "leg_contact": "obs[7]"},
    "mountaincar-reach-flag": {"position": "obs[0]", "momentum": "obs[1]"},
    "pendulum-swing-up": {"upright": "obs[0]"},  # no momentum term: the task asks to hold the pole still
    "acrobot-swing-up": {"momentum": "obs[4]"},  # "pump energy by swinging"; a discrete action: no effort term
    "mountaincar-discrete-reach-flag": {"position": "obs[0]", "momentum": "obs[1]"},
    # "from the centre of the track" is where it starts; "(x = +1.0)" is where it should go
    "cartpole-hold-right": {"to_x_target": "obs[0]", "upright_angle": "obs[2]"},
    "pendulum-hold-tilted": {"to_theta_target": "obs[0]"},  # "theta = +0.3" from cos and sin, not upright
    "pendulum-spin": {"turning": "obs[2]"},  # "in the positive direction": that way only, the swing back not docked
}


@pytest.mark.parametrize("task", sorted(EXPECTED))
def test_obs_only_env_gets_task_terms_from_its_labelled_dimensions(task: str) -> None:
    spec = load_task(task)
    names = task_names(Designer(None, spec, describe(spec)).prompt())
    assert names["bodies"] == [] and names["observation"]  # no MuJoCo model, but labelled dimensions
    lines = [line for line in example_lines(names) if reads_state(line)]
    found = {line.split('"')[1]: line for line in lines}
    assert set(found) == set(EXPECTED[task])
    for name, index in EXPECTED[task].items():
        assert index in found[name]
    assert all(component_line(line, names) for line in example_lines(names))
    assert any('"effort"' in line for line in example_lines(names)) is (not names["discrete"])
    # an empty reply gets these lines, and the note no longer says the reward measures nothing
    code, note = close_function('effort"] = -0.1 * float(np.sum(np.square(action)))', names)
    assert "does not measure the task" not in note and "example's task lines were put in" in note
    scope: dict = {}
    exec(compile(code, f"<{task}>", "exec"), scope)  # our own template's code, run here on purpose
    env = make_env(spec)
    snap = Snapshotter(env)
    obs, _ = env.reset(seed=0)
    for _ in range(3):
        action = env.action_space.sample()
        before = snap(obs)
        obs, *_ = env.step(action)
        total, components = scope["compute_reward"](before, action, snap(obs))
        assert np.isfinite(total) and set(EXPECTED[task]) <= set(components)
    env.close()


def test_labels_match_whole_task_words_only_and_unlabelled_envs_get_nothing() -> None:
    dims = observation_dims("## Observation layout\n- obs[0] = cart position (m)\n- obs[1:3] = something\n- obs[2] = pole angle\n")
    assert dims == {0: "cart position (m)", 2: "pole angle"}
    assert observation_lines(dims, "plant the flags") == []  # "flags" is not the word "flag"
    assert observation_lines(dims, "reach the flag") == ['components["position"] = float(next_state.obs[0])']
    assert observation_lines({}, "walk forward") == []


CARTPOLE_SPEC = '''name = "cartpole-balance"
env = "CartPole-v1"
description = """
Balance the pole upright on the cart for as long as possible.
Keep the cart near the middle of the track.
"""
[fitness]
scorer = "scorers:FinalDistance"
'''


def test_a_users_cartpole_balance_gets_the_angle_the_centre_and_a_step_survived(tmp_path) -> None:
    """`new-task --env CartPole-v1` with the offline default: the template had no line at all (an empty reward,
    trained to 0.02 at 20,000 steps; random 0.03); now -|angle|, -0.2|x| and +1 a step (the episode ends on a fall,
    so a negative total would pay for falling sooner), and the run's picks kept the pole up all 500 steps."""
    (tmp_path / "cartpole-balance.toml").write_text(CARTPOLE_SPEC)
    spec = load_task(tmp_path / "cartpole-balance.toml")
    names = task_names(Designer(None, spec, describe(spec)).prompt())
    assert names["discrete"] and names["ends_on_failure"]
    assert example_lines(names) == [
        'components["upright_angle"] = -abs(float(next_state.obs[2]))',
        'components["centred"] = -0.2 * abs(float(next_state.obs[0]))',
        'components["alive"] = 1.0',
    ]
    assert all(component_line(line, names) for line in example_lines(names))


@pytest.mark.parametrize(
    "task",
    ["mountaincar-reach-flag", "mountaincar-discrete-reach-flag", "pendulum-swing-up", "acrobot-swing-up", "lunarlander-land"],
)
def test_no_step_survived_term_where_the_episode_ends_at_the_goal_or_never(task: str) -> None:
    """A constant a step pays for stalling where the episode ends at the goal (mountaincar, acrobot), is invisible
    where it never ends early (pendulum), and pays for hovering where it ends on landing (lunarlander)."""
    spec = load_task(task)
    names = task_names(Designer(None, spec, describe(spec)).prompt())
    assert not any('"alive"' in line for line in example_lines(names))


def test_a_coordinate_the_task_names_is_a_target_on_its_labelled_position() -> None:
    """cartpole-hold-right's template had no term for "x = +1.0" (upright and a step survived: what the alive
    reference learns, fitness 0); the target term is 1 there, 0 from 2 units away, never negative."""
    dims = {0: "cart position (m)", 1: "cart velocity (m/s)", 2: "pole angle (rad, 0 = upright)"}
    target = 'components["to_x_target"] = max(0.0, 1.0 - 0.5 * abs(float(next_state.obs[0]) - 1.0))'
    assert observation_lines(dims, "move the cart to the spot at x = +1.0 and hold it there") == [target]
    assert observation_lines(dims, "keep it near the middle, x = 1.5e3 is far") == [
        'components["centred"] = -0.2 * abs(float(next_state.obs[0]))'  # "1.5e3" is no coordinate's value
    ]
    assert observation_lines(dims, "go to y = 2") == []  # no dimension is labelled a y position
    pad = {0: "x position relative to the pad", 1: "y position relative to the pad", 2: "x velocity"}
    assert observation_lines(pad, "hover at x = -0.5, y = 2") == [
        'components["to_x_target"] = max(0.0, 1.0 - 0.5 * abs(float(next_state.obs[0]) + 0.5))',
        'components["to_y_target"] = max(0.0, 1.0 - 0.5 * abs(float(next_state.obs[1]) - 2.0))',
    ]
    assert all(component_line(line, {"arrays": {"obs": 3}}) for line in observation_lines(pad, "hover at x = -0.5, y = 2"))
    pendulum = {0: "cos(theta); theta = 0 is upright", 1: "sin(theta)", 2: "angular velocity theta_dot (rad/s)"}
    tilt = observation_lines(pendulum, "hold it upright, tilted to theta = -0.5")  # (1 + cos(theta + 0.5)) / 2
    assert tilt == [
        'components["to_theta_target"] = 0.5 + 0.5 * (0.8776 * float(next_state.obs[0]) - 0.4794 * float(next_state.obs[1]))'
    ]  # and no "upright" term on obs[0], which the target reads
    assert component_line(tilt[0], {"arrays": {"obs": 3}})


def test_a_dimension_is_measured_by_one_term_only() -> None:
    dims = {0: "x position relative to the pad centre", 4: "body angle (rad, 0 = upright)"}
    lines = observation_lines(dims, "land upright on the pad, centred")
    assert lines == [
        'components["level"] = -abs(float(next_state.obs[4]))',
        'components["over_pad"] = -abs(float(next_state.obs[0]))',
    ]  # not also "upright_angle" on obs[4] and "centred" on obs[0]
