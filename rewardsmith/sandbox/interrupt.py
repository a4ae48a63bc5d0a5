"""Prompt stops on SIGINT and SIGTERM: supervised workers are killed, no new one starts, the process exits.

`interruptible(on_stop)` wraps the work of `rewardsmith run` and `batch` in the main thread. A signal sets
`STOP` (every `run_worker` kills its worker at its next poll and raises `Interrupted`; none starts after),
raises `Interrupted` in the main thread, and arms a deadline: if the process has not exited within
`GRACE_S` (a thread waiting on an LLM reply, a pool being joined), `on_stop` runs from the deadline
thread and the process exits at once with 128 + the signal number (130 for SIGINT, 143 for SIGTERM).
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

STOP = threading.Event()
"""Set once a stop was requested; `run_worker` polls it."""
GRACE_S = 4.0
SIGNALS = (signal.SIGINT, signal.SIGTERM)


class Interrupted(KeyboardInterrupt):
    """The work was stopped by a signal; `exit_code` is what the command exits with."""

    def __init__(self, signum: int = signal.SIGINT) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum
        self.reported = False
        """True once `on_stop` said how to resume (the CLI then prints nothing more)."""

    @property
    def exit_code(self) -> int:
        return 128 + self.signum


_state: dict[str, int] = {}


def stop_signal() -> int:
    """The signal that requested the stop (SIGINT if none was recorded)."""
    return _state.get("signum", signal.SIGINT)


def exit_code(code: object) -> object:
    """The exit code for a command that ended with `code`: 128 + the signal when a signal stopped it."""
    return 128 + stop_signal() if STOP.is_set() and code in (130, 1) else code


def raise_if_stopping() -> None:
    """Raise `Interrupted` when a stop was requested (called before a worker starts and while it runs)."""
    if STOP.is_set():
        raise Interrupted(stop_signal())


@contextmanager
def interruptible(on_stop: Callable[[int], None]) -> Iterator[None]:
    """Within the block, SIGINT/SIGTERM stop the work (see the module docstring). `on_stop(signum)` must stop
    what is left, mark the work interrupted and print how to resume; it runs once, when `Interrupted` leaves
    the block or from the deadline thread, whichever comes first. Outside the main thread this only runs
    `on_stop` when an `Interrupted` passes through (the main thread owns the handlers)."""
    once = threading.Lock()

    def stop_once(signum: int) -> bool:
        if not once.acquire(blocking=False):
            return False
        on_stop(signum)
        return True

    if threading.current_thread() is not threading.main_thread():
        try:
            yield
        except Interrupted as e:
            e.reported = stop_once(e.signum) or e.reported
            raise
        return

    STOP.clear()
    _state.clear()

    def deadline(signum: int) -> None:
        if not _exited.wait(GRACE_S):
            try:
                stop_once(signum)
            finally:
                sys.stderr.flush()
                os._exit(128 + signum)

    _exited = threading.Event()

    def handler(signum: int, frame: object) -> None:
        if STOP.is_set():
            return  # a second Ctrl-C: the first stop is under way, the deadline guarantees the exit
        _state["signum"] = signum
        STOP.set()
        threading.Thread(target=deadline, args=(signum,), daemon=True, name="stop-deadline").start()
        raise Interrupted(signum)

    previous = {sig: signal.signal(sig, handler) for sig in SIGNALS}
    try:
        yield
    except Interrupted as e:
        e.reported = stop_once(e.signum) or e.reported
        raise
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)
        if not STOP.is_set():
            _exited.set()
