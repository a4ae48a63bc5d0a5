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


DISCRETE = {"acrobot-swing-up"}
"""Shipped tasks whose action is one of N choices; no other discrete task ships, so none is shown an example."""


@pytest.mark.parametrize("task", sorted(set(SHIPPED) - DISCRETE))
def test_every_shipped_task_is_shown_a_task_of_its_family_with_another_objective(task: str) -> None:
    spec = load_task(task)
    chosen = worked_example(spec)
    assert chosen is not None, f"{task}: no example of its family asks for something else"
    other = load_task(chosen[0])
    assert other.name != task and task_family(other) == task_family(spec)
    assert not objective(spec) & objective(other), f"{task} and {other.name} ask for the same thing"
    assert not same_measure(spec, other), f"{other.name}'s scorer measures {task}'s quantity in another direction"


def test_run_backward_is_not_shown_run_forward() -> None:
    """The old rule (longest shared env id) showed halfcheetah-run: the answer with its sign flipped."""
    assert worked_example(load_task("halfcheetah-run-backward"))[0] != "halfcheetah-run"
    assert worked_example(load_task("metaworld-reach-fixed-goal"))[0] != "metaworld-reach"


def test_a_users_own_sideways_ant_task_is_shown_the_spin_example_not_the_run_one(tmp_path: Path) -> None:
    (tmp_path / "ant-left.toml").write_text(
        'name = "ant-left"\nenv = "Ant-v5"\ndescription = "Make the ant move to its left (towards +y) as fast as'
        ' possible."\n[fitness]\nscorer = "scorers:FinalDistance"\n'
    )
    assert worked_example(load_task(tmp_path / "ant-left.toml"))[0] == "ant-spin"


@pytest.mark.parametrize("task", sorted(DISCRETE))
def test_a_discrete_task_is_not_shown_a_continuous_tasks_action_terms(task: str) -> None:
    """Pendulum's example squares its action array: on Acrobot's choice index (0, 1, 2) that term would charge 4
    for torque +1 and nothing for torque -1. Without the rule Acrobot was shown it."""
    import gymnasium as gym

    from rewardsmith.stages.worked_example import reads_action
    from rewardsmith.task import make_env

    spec = load_task(task)
    assert isinstance(make_env(spec).action_space, gym.spaces.Discrete)
    assert worked_example(spec, discrete=True) is None
    shown_if_continuous = worked_example(spec, discrete=False)
    assert shown_if_continuous is not None and reads_action(shown_if_continuous[1])


def test_a_users_discrete_mountaincar_gets_no_continuous_example_and_the_continuous_one_does(tmp_path: Path) -> None:
    for env in ("MountainCar-v0", "MountainCarContinuous-v0"):
        (tmp_path / "mine.toml").write_text(
            f'name = "mine"\nenv = "{env}"\ndescription = "Rock the car back and forth in the valley, fast."\n'
            '[fitness]\nscorer = "scorers:FinalDistance"\n'
        )
        chosen = worked_example(load_task(tmp_path / "mine.toml"), discrete=env == "MountainCar-v0")
        assert (chosen is None) == (env == "MountainCar-v0"), (env, chosen and chosen[0])


def test_reads_action_looks_inside_compute_reward_only() -> None:
    from rewardsmith.stages.worked_example import reads_action

    assert reads_action("def compute_reward(state, action, next_state):\n    return -float(action[0]) ** 2, {}")
    assert not reads_action(
        "def helper(action):\n    return action\n\n\ndef compute_reward(state, action, next_state):\n    return 1.0, {}"
    )
