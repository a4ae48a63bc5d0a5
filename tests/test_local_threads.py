"""The built-in model's llama.cpp threads leave a core free: a thread that shares a core with a busy process holds
up every layer of a reply (measured 11x slower on 2 cores beside one training)."""

from __future__ import annotations

import pytest

from rewardsmith.llm import engine


@pytest.mark.parametrize(("cores", "threads"), [(1, 1), (2, 1), (4, 3), (16, 15)])
def test_one_core_is_left_free(monkeypatch, cores: int, threads: int) -> None:
    monkeypatch.delenv(engine.THREADS_ENV, raising=False)
    monkeypatch.setattr(engine.os, "sched_getaffinity", lambda pid: set(range(cores)))
    assert engine.thread_count() == threads


def test_the_environment_sets_the_threads(monkeypatch) -> None:
    monkeypatch.setattr(engine.os, "sched_getaffinity", lambda pid: {0, 1})
    monkeypatch.setenv(engine.THREADS_ENV, "2")
    assert engine.thread_count() == 2
    monkeypatch.setenv(engine.THREADS_ENV, "many")  # not a number: the default
    assert engine.thread_count() == 1
