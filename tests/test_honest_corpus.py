"""The honest corpus (tests/data/honest/): rewards in the styles models write, each for a real task (its `# task:`
line). Every one passes the gate and runs gated, in-process, on real states of its task's env."""

from __future__ import annotations

import math
from functools import cache
from pathlib import Path

import numpy as np
import pytest

from rewardsmith.reward.state import Snapshotter
from rewardsmith.sandbox.policy import check_source, load_reward
from rewardsmith.task import load_task, make_env

CORPUS = sorted((Path(__file__).parent / "data" / "honest").glob("*.py"))
STEPS = 4


def task_of(path: Path) -> str:
    first = path.read_text().splitlines()[0]
    assert first.startswith("# task: "), f"{path.name} must start with '# task: <name>'"
    return first.removeprefix("# task: ").strip()


@cache
def transitions(task: str) -> list[tuple]:
    """A few real (state, action, next_state) transitions of the task's env under seeded random actions."""
    env = make_env(load_task(task))
    try:
        snap = Snapshotter(env)
        obs, _ = env.reset(seed=0)
        env.action_space.seed(0)
        state, found = snap(obs), []
        for _ in range(STEPS):
            state.freeze()
            action = np.asarray(env.action_space.sample(), dtype=np.float64)
            obs, *_ = env.step(action)
            next_state = snap(obs)
            found.append((state, action, next_state))
            state = next_state
        state.freeze()
        return found
    finally:
        env.close()


def test_the_corpus_is_large_and_spans_tasks() -> None:
    assert len(CORPUS) >= 30
    assert len({task_of(p) for p in CORPUS}) >= 6


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.stem)
def test_honest_reward_passes_the_gate_and_runs_on_real_states(path: Path) -> None:
    source = path.read_text()
    assert check_source(source) == [], [str(f) for f in check_source(source)]
    reward = load_reward(source, filename=path.name, gate=True)
    for state, action, next_state in transitions(task_of(path)):
        total, components = reward(state, action, next_state)
        assert math.isfinite(float(total))
        assert components and all(isinstance(k, str) and math.isfinite(float(v)) for k, v in components.items())
