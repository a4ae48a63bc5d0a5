"""Warnings a process says once: a batch runs its tasks' searches on threads of one process, and each task meets
the same machine-wide facts (the sandbox keeps uid 0, no model is named) that a single run says once."""

from __future__ import annotations

import threading
from collections.abc import Callable

_SAID: set[str] = set()
_SAYING = threading.Lock()


def say_once(text: str, say: Callable[[str], None]) -> None:
    """`say(text)` the first time this process is asked to say `text`; later asks, on any thread, say nothing."""
    with _SAYING:
        if text in _SAID:
            return
        _SAID.add(text)
    say(text)


def forget() -> None:
    """Say everything again (a test standing for a new process)."""
    with _SAYING:
        _SAID.clear()
