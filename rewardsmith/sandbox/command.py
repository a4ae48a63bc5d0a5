"""The command line of a worker: an isolated interpreter (`python -I`: no PYTHONPATH, no user site, no parent
environment) that finds exactly the packages the parent finds, however they were installed.

`-I` alone would lose every package the parent found through its environment or its user site: dependencies on
`PYTHONPATH` (a `pip install --target` folder, a source checkout), a `pip install --user` site. So the parent
names its own package folders on the command line (`package_paths`) and the worker's bootstrap puts them first on
its `sys.path`, in the parent's order:

- the folder holding this rewardsmith (a checkout or a site-packages), always first, so the worker runs the same code;
- each entry of the parent's `sys.path` that holds installed distributions (`*.dist-info`, `*.egg-info`, `.pth`
  files) or a top-level module the parent imported: the venv's or interpreter's site-packages (a venv, pipx), a
  user site, a `PYTHONPATH` folder;
- the parent's user site is also processed as a site folder (`site.addsitedir`: its `.pth` files, e.g. an
  editable install), but only when the parent itself used it.

Nothing else crosses: not the environment (`launch.worker_env`), not '' or the parent's working folder, not a
`PYTHONPATH` entry that holds no package (such as a home folder), not a user site the parent did not use. The
folders named here are the worker's import path, so they are readable after lock-down
(`lockdown.read_roots`) as they were for the parent.
"""

from __future__ import annotations

import os
import site
import sys
from pathlib import Path

import rewardsmith

WORKER_MODULE = "rewardsmith.workers.main"
"""The module every sandboxed worker runs (`python -I ... rewardsmith.workers.main MODE JOB.json`)."""
EXIT_ORPHANED = 70
"""Exit code of a worker whose parent died before the worker could ask to die with it."""
# Asks the kernel for SIGKILL when the parent dies (PR_SET_PDEATHSIG = 1), then checks the race where the
# parent died first (the worker was re-parented already), processes the parent's user site if it used one, puts the
# parent's package folders first on sys.path and runs the module.
_BOOTSTRAP = (
    "import ctypes, os, runpy, site, sys; paths, parent, sites, mod = sys.argv[1:5]; "
    "ctypes.CDLL(None).prctl(1, 9, 0, 0, 0); "
    f"os.getppid() == int(parent) or os._exit({EXIT_ORPHANED}); "
    "sys.argv = [mod, *sys.argv[5:]]; paths = paths.split(os.pathsep); "
    "[site.addsitedir(s) for s in sites.split(os.pathsep) if s and s not in sys.path]; "
    "sys.path[:] = [*paths, *(p for p in sys.path if p not in paths)]; "
    "runpy.run_module(mod, run_name='__main__', alter_sys=True)"
)
_INSTALLED = (".dist-info", ".egg-info", ".egg-link", ".pth")


def holds_packages(folder: Path) -> bool:
    """Whether `folder` holds installed distributions (pip's metadata or a `.pth` file)."""
    try:
        with os.scandir(folder) as entries:
            return any(entry.name.endswith(_INSTALLED) for entry in entries)
    except OSError:
        return False


def imported_from() -> set[str]:
    """The folders the parent's imported top-level modules were found in."""
    found = set()
    for name, module in list(sys.modules.items()):
        where = getattr(module, "__file__", None)
        if "." in name or not isinstance(where, str):
            continue
        path = Path(where).resolve().parent
        found.add(str(path.parent if path.name == name else path))  # a package's folder, or a module's
    return found


def user_sites() -> list[str]:
    """The parent's user site, when its interpreter used one (on its `sys.path`); else none."""
    user = site.getusersitepackages() if site.ENABLE_USER_SITE else None
    return [user] if user and user in sys.path else []


def package_paths() -> list[str]:
    """The worker's import path, first: this rewardsmith's folder, then the parent's `sys.path` entries that hold
    packages (module docstring), in the parent's order."""
    root = str(Path(rewardsmith.__file__).resolve().parent.parent)
    imported, here = imported_from(), Path.cwd().resolve()
    found = [root]
    for entry in sys.path:
        if not entry or os.pathsep in entry or not Path(entry).is_absolute() or not Path(entry).is_dir():
            continue
        resolved = Path(entry).resolve()
        if resolved != here and (holds_packages(resolved) or str(resolved) in imported):
            found.append(entry)
    return list(dict.fromkeys(found))


def python_command(module: str, *args: str) -> list[str]:
    """An isolated-interpreter command line running `module` with `args`, with the parent's package folders."""
    paths, sites = os.pathsep.join(package_paths()), os.pathsep.join(user_sites())
    return [sys.executable, "-I", "-c", _BOOTSTRAP, paths, str(os.getpid()), sites, module, *args]


def worker_command(mode: str, job_path: Path) -> list[str]:
    """The command line of a worker: `python -I ... rewardsmith.workers.main <mode> <job.json>`."""
    return python_command(WORKER_MODULE, mode, str(job_path))
