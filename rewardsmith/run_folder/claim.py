"""Output folders: `runs/<task>/<stamp>/`, created atomically so concurrent runs never share one, and the explicit
ones a user names (`--out`, `--to`, `--folder`), which are checked before anything is written into them.

What an explicit `--out` may already hold (`claim_dir`): nothing, or what a start of a command cut short left
before it recorded anything of its own: a `.owner` lock of a process that is gone (or of this process), and the
copies a run makes of its task spec before run.json (`task.toml` and the `.py` modules it names). A folder
holding anything else (a run, a batch, a user's files, an earlier run whose `.owner` is gone) is refused, and
nothing in it changes: a run is continued with `rewardsmith resume DIR`, never by a new `run --out DIR`, so a
command can never overwrite a run whose settings it does not know.
"""

from __future__ import annotations

import fcntl
import os
import secrets
import tempfile
import time
from pathlib import Path

from rewardsmith.errors import OutputFolderError
from rewardsmith.run_folder.records import OWNER_FILE, RUN_FILE, TASK_FILE
from rewardsmith.sandbox.proc import pid_alive

RUNS_DIR = Path("runs")
RESUMABLE = {RUN_FILE: "a run", "batch.json": "a batch"}
"""Records that mark a folder as a started run or batch: continued with `rewardsmith resume DIR`."""


def new_run_dir(root: Path | None, name: str) -> Path:
    """Create and return a fresh folder `root/name/<UTC stamp>-<random>`; never reuses an existing one."""
    parent = output_folder(Path(root or RUNS_DIR) / name)
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    while True:
        candidate = parent / f"{stamp}-{secrets.token_hex(3)}"
        try:
            os.mkdir(candidate)  # atomic: fails if another process made the same name
            return candidate
        except FileExistsError:
            continue


def output_folder(path: Path, option: str = "--out") -> Path:
    """Make `path` (and its parents) and prove that files can be written in it, without leaving a name behind;
    OutputFolderError (one line, naming `option`) if not."""
    path = Path(path)
    if path.exists() and not path.is_dir():
        raise OutputFolderError(f"{path}: is a file, not a folder; give {option} a folder")
    try:
        path.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=path):  # O_TMPFILE where the system has it: no entry in the folder
            pass
    except OSError as e:
        raise OutputFolderError(
            f"{path}: cannot write here ({e.strerror or e}); give {option} a folder you can write to"
        ) from None
    return path


def claim_dir(path: Path, option: str = "--out") -> Path:
    """Use an explicit output folder: new, empty or left by a start cut short (see the module docstring), so no
    two commands write into one and no user's files are replaced. OutputFolderError, with the folder unchanged,
    for anything else or a folder that cannot be written."""
    path = Path(path)
    _refuse_used(path, option)  # before anything is written, even a probe
    output_folder(path, option)
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # two commands claiming one folder at once: the second sees the first's lock
        _refuse_used(path, option)
        lock = path / OWNER_FILE
        part = path / f"{OWNER_FILE}.{os.getpid()}.part"
        part.write_text(f"{os.getpid()} {time.time()}\n", encoding="utf-8")
        os.replace(part, lock)
    except OSError as e:
        raise OutputFolderError(
            f"{path}: cannot write here ({e.strerror or e}); give {option} a folder you can write to"
        ) from None
    finally:
        os.close(fd)
    return path


def adopt(path: Path) -> None:
    """Make an existing `.owner` in `path` this process's: for a folder this process already holds by another
    lock (a batch's task folder, under batch.lock), so `claim_dir` takes up what a cut-short start left."""
    lock = Path(path) / OWNER_FILE
    if lock.is_file():
        lock.write_text(f"{os.getpid()} {time.time()}\n", encoding="utf-8")


def _owner_pid(path: Path) -> int | None:
    try:
        return int((path / OWNER_FILE).read_text(encoding="utf-8").split()[0])
    except (OSError, ValueError, IndexError):
        return None


def _refuse_used(path: Path, option: str) -> None:
    """OutputFolderError unless `path` is missing, empty, or a cut-short start's leftovers."""
    if not path.is_dir():
        return  # missing (made by output_folder), or a file (refused there)
    try:
        entries = sorted(os.listdir(path))
    except OSError as e:
        raise OutputFolderError(f"{path}: cannot read the folder ({e.strerror or e}); give {option} another") from None
    if not entries:
        return
    new = f"give {option} a new or empty folder"
    for record, what in RESUMABLE.items():
        if record in entries:
            raise OutputFolderError(
                f"{path}: holds {what} already; continue it with `rewardsmith resume {path}`, or {new}"
            )
    if OWNER_FILE in entries:
        owner = _owner_pid(path)
        if owner is not None and owner != os.getpid() and pid_alive(owner):
            raise OutputFolderError(f"{path}: in use by a running rewardsmith process (pid {owner}); {new}")
        if _only_leftovers(path):
            return  # a start cut short before it recorded anything: its lock and copies of the task's files
    shown = ", ".join(entries[:3]) + (", ..." if len(entries) > 3 else "")
    raise OutputFolderError(f"{path}: not empty ({shown}); rewardsmith never writes over files: {new}")


def _only_leftovers(path: Path) -> bool:
    """Whether every file under `path` is the `.owner` lock or a copy a run makes before run.json."""
    for p in path.rglob("*"):
        rel = p.relative_to(path)
        if not p.is_dir() and not str(rel).startswith(OWNER_FILE) and rel != Path(TASK_FILE) and p.suffix != ".py":
            return False
    return True
