"""The illustrative worked example shown with a designer request: from the same family, asking for something else
(`stages.worked_example`), so it shows the State API without being the answer with a flipped sign or axis."""

from __future__ import annotations

from pathlib import Path

import pytest

from rewardsmith.stages.worked_example import objective, worked_example
from rewardsmith.task import ENVS_DIR, TaskSpec, list_tasks, load_task, task_family

SHIPPED = sorted(spec.name for spec in list_tasks(ENVS_DIR))
DIRECTION_KWARGS = {"axis", "axes", "sign", "direction", "backward"}
"""Scorer kwargs that only point the measured quantity somewhere else."""


def same_measure(a: TaskSpec, b: TaskSpec) -> bool:
    """Whether two tasks' trusted scorers measure one quantity on one env, up to its direction."""
    strip = lambda s: {k: v for k, v in s.fitness.kwargs.items() if k not in DIRECTION_KWARGS}  # noqa: E731
    return (a.env, a.fitness.scorer, strip(a)) == (b.env, b.fitness.scorer, strip(b))


DISCRETE = {"acrobot-swing-up", "mountaincar-discrete-reach-flag", "cartpole-hold-right"}
"""Shipped tasks whose action is one of N choices."""


@pytest.mark.parametrize("task", SHIPPED)
def test_every_shipped_task_is_shown_a_task_of_its_family_with_another_objective(task: str) -> None:
    spec = load_task(task)
    chosen = worked_example(spec, discrete=task in DISCRETE)
    assert chosen is not None, f"{task}: no example of its family asks for something else"
    other = load_task(chosen[0])
    assert other.name != task and task_family(other) == task_family(spec)
    assert not objective(spec) & objective(other), f"{task} and {other.name} ask for the same thing"
    assert not same_measure(spec, other), f"{other.name}'s scorer measures {task}'s quantity in another direction"


@pytest.mark.parametrize("task", sorted(DISCRETE))
def test_a_discrete_task_is_not_shown_a_continuous_tasks_action_terms(task: str) -> None:
    """Pendulum's example squares its action array: on Acrobot's choice index (0, 1, 2) that term would charge 4
    for torque +1 and nothing for torque -1. Without the rule Acrobot was shown it."""
    import gymnasium as gym

    from rewardsmith.stages.worked_example import reads_action
    from rewardsmith.task import make_env

    spec = load_task(task)
    assert isinstance(make_env(spec).action_space, gym.spaces.Discrete)
    name, code = worked_example(spec, discrete=True)
    assert not reads_action(code) or isinstance(make_env(load_task(name)).action_space, gym.spaces.Discrete)
    assert "np.square(action)" not in code
    if task == "acrobot-swing-up":
        assert worked_example(spec, discrete=False)[0] == "pendulum-swing-up"  # what the rule keeps it from


def test_a_users_mountaincar_is_shown_the_example_of_its_action_kind(tmp_path: Path) -> None:
    """Both cars share the longest env-id prefix with both shipped mountain-car tasks: the continuous one is shown
    the continuous car's example (its effort term squares the action), the discrete one the discrete car's."""
    shown = {}
    for env in ("MountainCar-v0", "MountainCarContinuous-v0"):
        (tmp_path / "mine.toml").write_text(
            f'name = "mine"\nenv = "{env}"\ndescription = "Rock the car back and forth in the valley, fast."\n'
            '[fitness]\nscorer = "scorers:FinalDistance"\n'
        )
        shown[env] = worked_example(load_task(tmp_path / "mine.toml"), discrete=env == "MountainCar-v0")[0]
    assert shown == {
        "MountainCar-v0": "mountaincar-discrete-reach-flag",
        "MountainCarContinuous-v0": "mountaincar-reach-flag",
    }


def test_reads_action_looks_inside_compute_reward_only() -> None:
    from rewardsmith.stages.worked_example import reads_action

    assert reads_action("def compute_reward(state, action, next_state):\n    return -float(action[0]) ** 2, {}")
    assert not reads_action(
        "def helper(action):\n    return action\n\n\ndef compute_reward(state, action, next_state):\n    return 1.0, {}"
    )
