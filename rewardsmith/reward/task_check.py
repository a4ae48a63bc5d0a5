"""Validate a task spec before any LLM call: the env builds, the scorer exists and takes its arguments,
random-action and zero-action episodes (`neutral_action`: a discrete env's middle choice) are scorable, a fitness
that no simple policy changes is flagged, and so is an env whose `reset(seed=...)` does not give the same start in two
fresh instances (the evaluation compares candidates on the same reset seeds, so such an env compares them on
different starts, or on another goal than the one trained for).

A task error is the user's, not a candidate's: it raises `TaskSpecError` naming the spec, before a run
creates anything, so it can never reach a prompt ("Avoid these mistakes") or cost a retry.
"""

from __future__ import annotations

import math
from typing import Any

import gymnasium as gym
import numpy as np

from rewardsmith.errors import TaskSpecError
from rewardsmith.reward.fitness import EpisodeScorer
from rewardsmith.reward.wrappers import ApplyReward, neutral_action
from rewardsmith.task import TaskSpec, make_env, make_scorer

MAX_STEPS = 300  # per episode: enough to see a policy-blind scorer, cheap before every run
RESET_SEEDS = 3
"""Reset seeds tried before a fitness that no action changed is flagged: from one start the actions may not matter
(a hanging pendulum scores 0 under random and zero torques alike), from another they do."""
PLACEHOLDER = "TODO"
"""What `rewardsmith new-task` writes where the user must describe the task (description, success, scorer unit)."""


def _episode(
    env: ApplyReward, spec: TaskSpec, policy: str, seed: int, action_seed: int, max_steps: int, held: Any = None
) -> tuple[float, bool]:
    """One episode under `policy` ("random", "zero", or the name of the action `held` for the whole episode),
    scored by a fresh scorer; TaskSpecError if it fails."""
    where = f"{spec.source or spec.name}: scorer {spec.fitness.scorer}"
    action = env.action_space.sample()
    try:
        env.scorer = make_scorer(spec)
        env.scorer.bind_env(env.unwrapped)
        env.reset(seed=seed)
        env.action_space.seed(action_seed)
        info: dict[str, Any] = {}
        for _ in range(max_steps):
            if held is not None:
                action = held
            else:
                action = env.action_space.sample() if policy == "random" else neutral_action(env.action_space)
            _, _, terminated, truncated, info = env.step(action)
            if terminated or truncated:
                break
        stats = info.get("episode_stats") or env.episode_stats(False)
        last = env.state
        assert last is not None
        if type(env.scorer).sparse_reward is not EpisodeScorer.sparse_reward:  # optional: the sparse baseline's
            env.scorer.sparse_reward(last, np.asarray(action, dtype=float), last)
    except TaskSpecError:
        raise
    except Exception as e:  # noqa: BLE001 - any failure of trusted task code is a task error
        raise TaskSpecError(f"{where} failed on a {policy}-action episode: {type(e).__name__}: {e}") from None
    fitness = stats.get("fitness")
    if not isinstance(fitness, float) or not math.isfinite(fitness):
        raise TaskSpecError(f"{where} gave a non-finite fitness {fitness!r} on a {policy}-action episode")
    return fitness, bool(stats.get("success"))


def _first_observation(env: Any, seed: int) -> np.ndarray:
    obs, _ = env.reset(seed=seed)
    if isinstance(obs, dict):
        return np.concatenate([np.ravel(np.asarray(obs[key], dtype=float)) for key in sorted(obs)])
    return np.ravel(np.asarray(obs, dtype=float))


def reset_is_reproducible(spec: TaskSpec, seed: int = 0) -> bool:
    """Whether two fresh instances of the task's env give the same first observation for `reset(seed=seed)`.

    Fresh ones, not the env `validate_task` played: a used `Meta-World/MT1` draws the next goal before it applies
    the seed, so its `reset(seed=s)` depends on the episodes before, in every process alike. That is the env's
    own episode-to-episode randomness; what this checks is randomness that differs between processes."""
    first, second = make_env(spec), make_env(spec)
    try:
        a, b = _first_observation(first, seed), _first_observation(second, seed)
    finally:
        first.close()
        second.close()
    return a.shape == b.shape and bool(np.allclose(a, b, rtol=0, atol=1e-9, equal_nan=True))


def check_algorithm_fits(spec: TaskSpec, action_space: Any) -> None:
    """TaskSpecError where the spec's learner cannot act in the env's action space (SAC and gSDE need a
    continuous action; PPO takes a discrete one as well)."""
    where = f"{spec.source or spec.name}: [train]"
    if isinstance(action_space, gym.spaces.Box):
        return
    if not isinstance(action_space, gym.spaces.Discrete):
        raise TaskSpecError(f"{where}: the env's {action_space} action space is not supported (Box or Discrete)")
    if spec.train.algo != "PPO":
        raise TaskSpecError(
            f"{where} algo = {spec.train.algo!r} needs a continuous (Box) action, and this env's is {action_space}:"
            ' use algo = "PPO"'
        )
    if spec.train.hyperparams.get("use_sde"):
        raise TaskSpecError(f"{where} use_sde needs a continuous (Box) action, and this env's is {action_space}")


def check_observation_fits(where: str, observation_space: Any) -> None:
    """TaskSpecError, prefixed with `where`, where the env observes an image (a Box of 3 or more axes, or a dict
    part that is one): the policies trained here are MLPs over a flat vector, and a reward reads `state.obs` as one."""
    parts = observation_space.spaces if isinstance(observation_space, gym.spaces.Dict) else {"": observation_space}
    for name, space in parts.items():
        shape = getattr(space, "shape", None) or ()
        if len(shape) >= 3:
            what = f"observation{f' part {name!r}' if name else ''}"
            raise TaskSpecError(
                f"{where}: the env's {what} is an image ({'x'.join(map(str, shape))}, {space.dtype}):"
                " rewardsmith trains MLP policies on vector observations, and a reward reads the state as a vector;"
                " use a variant of the env that observes its state, or wrap it so that it does"
            )


def held_actions(space: Any) -> list[tuple[str, Any]]:
    """Actions held for a whole episode where random and idle ones score alike: a Box's low and high ends and two
    uniform draws (a hand pushed one way the whole time reaches further than random jitter: Meta-World's door
    handle, Fetch's block), or each choice of a Discrete (at most 8)."""
    if isinstance(space, gym.spaces.Discrete):
        return [(f"choice {space.start + i} held", space.start + i) for i in range(min(int(space.n), 8))]
    if not isinstance(space, gym.spaces.Box) or not (np.isfinite(space.low).all() and np.isfinite(space.high).all()):
        return []
    rng = np.random.default_rng(0)
    draws = [(f"draw {k} held", rng.uniform(space.low, space.high).astype(space.dtype)) for k in (1, 2)]
    return [("low held", space.low.copy()), ("high held", space.high.copy()), *draws]


def trained_policy_scores_otherwise(spec: TaskSpec) -> bool:
    """Whether the spec's own calibration (current with its training settings) shows a trained policy scoring
    apart from the random policy, by more than 2 standard errors of the difference: then the scorer depends on what
    the policy does, however alike random and idle episodes score (lunarlander-land: every one of them crashes, 0)."""
    cal = spec.fresh_calibration
    if cal is None or len(cal.good) != 2 or len(cal.random) != 2:
        return False
    (good, good_se), (random, random_se) = cal.good, cal.random
    return abs(good - random) > 2.0 * math.hypot(good_se, random_se)


def _alike(fitness: list[float]) -> bool:
    return max(fitness) - min(fitness) <= 1e-9 * (1 + abs(fitness[0]))


def validate_task(spec: TaskSpec, *, seed: int = 0, max_steps: int = MAX_STEPS) -> list[str]:
    """Check a task end to end with its own env and scorer; raises TaskSpecError, returns warnings.

    Runs two random-action episodes and one zero-action episode from the same reset seed (each at most
    `max_steps` steps), so only the actions differ, and where those score alike, episodes of `held_actions`. The
    same fitness for all, from each of `RESET_SEEDS` reset seeds, is flagged: a scorer that measures something the
    policy cannot change (e.g. the spawn height) gives every candidate the same score. Not flagged where the spec
    names its floor (`[fitness] floor`) or its calibration shows a trained policy scoring otherwise.
    """
    answered = spec.fitness.floor is not None or trained_policy_scores_otherwise(spec)  # no need to look further
    env = ApplyReward(make_env(spec), scorer=make_scorer(spec), source="native")
    try:
        check_algorithm_fits(spec, env.action_space)
        check_observation_fits(str(spec.source or spec.name), env.observation_space)
        for start in range(seed, seed + RESET_SEEDS):
            results = [
                _episode(env, spec, "random", start, start, max_steps),
                _episode(env, spec, "random", start, start + 1, max_steps),
                _episode(env, spec, "zero", start, start, max_steps),
            ]
            fitness = [f for f, _ in results]
            blind = _alike(fitness)
            if blind and not answered:  # held actions go further than random jitter
                for name, held in held_actions(env.action_space):
                    fitness.append(_episode(env, spec, name, start, start, max_steps, held)[0])
                    if not _alike(fitness):
                        blind = False
                        break
            if not blind:
                break
    finally:
        env.close()
    warnings = []
    if blind and not answered:
        warnings.append(
            f"{spec.source or spec.name}: the fitness is {fitness[0]:.6g} for random, zero and held actions alike,"
            f" from {RESET_SEEDS} reset seeds: scorer {spec.fitness.scorer} may not depend on what the policy does."
            " If such episodes all hit its floor (a crash's 0, an object never touched), say so in [fitness] floor;"
            " `rewardsmith calibrate` shows whether a trained policy scores otherwise"
        )
    if not reset_is_reproducible(spec, seed):
        warnings.append(
            f"{spec.source or spec.name}: reset(seed={seed}) gives a different first observation in two fresh envs: "
            "the evaluation's episodes will differ between candidates and between training and evaluation "
            "(for Meta-World/MT1, set a `seed` in env_kwargs: it fixes the 50 goals it draws from)"
        )
    unit = getattr(env.scorer, "unit", None)  # optional, as the designer reads it (`stages.designer.fitness_unit`)
    told = {"description": spec.description, "success": spec.success, "scorer's unit": unit}
    unedited = [name for name, text in told.items() if isinstance(text, str) and PLACEHOLDER in text]
    if unedited:
        warnings.append(
            f"{spec.source or spec.name}: new-task's {PLACEHOLDER} placeholders are still in the {', '.join(unedited)}, "
            "and the designer's prompt shows them as they are: edit them before a run"
        )
    if all(success for _, success in results):
        warnings.append(f"{spec.source or spec.name}: random and zero-action episodes all succeed: the task is trivial")
    return warnings
