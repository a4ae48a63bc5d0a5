"""Facts the parent asks of a task's env before any candidate runs: its action kind and how its episodes end.

The env is made once per (env id, env kwargs) in this process, asked, and closed; no candidate code runs in it.
The worked example (`stages.worked_example`) reads the action kind of the tasks it might show, and the screen
(`stages.screen`) reads whether the env ends an episode early only at its goal.
"""

from __future__ import annotations

from dataclasses import dataclass

from rewardsmith.task import TaskSpec, make_env


@dataclass(frozen=True)
class EnvFacts:
    """What one task's env is, asked of its unwrapped env."""

    discrete_action: bool
    """The action is one of N choices (`gymnasium.spaces.Discrete`)."""
    ends_only_at_goal: bool
    """The only early termination is reaching the goal (`obs_layouts.GOAL_ONLY_ENDINGS`)."""


_FACTS: dict[tuple[str, str], EnvFacts] = {}


def env_facts(spec: TaskSpec) -> EnvFacts:
    """The facts of `spec`'s env, made once per env id and kwargs in this process."""
    key = (spec.env, repr(sorted(spec.env_kwargs.items())))
    if key not in _FACTS:
        import gymnasium as gym

        from rewardsmith.stages.obs_layouts import ends_only_at_goal

        env = make_env(spec)
        try:
            _FACTS[key] = EnvFacts(
                discrete_action=isinstance(env.action_space, gym.spaces.Discrete),
                ends_only_at_goal=ends_only_at_goal(env.unwrapped),
            )
        finally:
            env.close()
    return _FACTS[key]
