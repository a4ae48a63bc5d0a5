"""Run folders: `runs/<task>/<stamp>/`, created atomically so concurrent runs never share one."""

from __future__ import annotations

import os
import secrets
import time
from pathlib import Path

RUNS_DIR = Path("runs")


def new_run_dir(root: Path | None, name: str) -> Path:
    """Create and return a fresh folder `root/name/<UTC stamp>-<random>`; never reuses an existing one."""
    parent = Path(root or RUNS_DIR) / name
    parent.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    while True:
        candidate = parent / f"{stamp}-{secrets.token_hex(3)}"
        try:
            os.mkdir(candidate)  # atomic: fails if another process made the same name
            return candidate
        except FileExistsError:
            continue


def claim_dir(path: Path) -> Path:
    """Use an explicit `--out` folder: it must be new or empty, so no two runs write into one."""
    path = Path(path)
    path.mkdir(parents=True, exist_ok=True)
    lock = path / ".owner"
    try:
        fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
    except FileExistsError:
        from rewardsmith.errors import RunFolderError

        raise RunFolderError(f"{path}: already used by another run; pick a new --out folder or resume it") from None
    with os.fdopen(fd, "w") as f:
        f.write(f"{os.getpid()} {time.time()}\n")
    return path
