"""What /proc says about a process: its stat fields, its state letter, whether it is alive."""

from __future__ import annotations

import os
from pathlib import Path


def stat_fields(pid: int) -> list[str]:
    """The fields of /proc/<pid>/stat after the command name (the state letter first, the session id fourth);
    [] when they cannot be read."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        return stat[stat.rindex(")") + 2 :].split()
    except (OSError, ValueError):
        return []


def process_state(pid: int) -> str:
    """The process's state letter from /proc (R, S, D, Z, ...); "" when it cannot be read."""
    fields = stat_fields(pid)
    return fields[0] if fields else ""


def pid_alive(pid: int) -> bool:
    """Whether a process with this id exists (and is not a zombie)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return process_state(pid) != "Z"
