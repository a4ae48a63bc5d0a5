"""Workers find the parent's packages in every install layout (issue 26): a `python -I` worker started by a real
parent process imports a module that the parent finds only through PYTHONPATH (a `pip install --target` folder), a
`--user` site (with an editable install's .pth), or its venv; and nothing the parent did not use crosses over."""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from rewardsmith.sandbox.command import package_paths

ROOT = Path(__file__).resolve().parent.parent
PARENT = """
import sys
from pathlib import Path
from rewardsmith.sandbox.command import python_command
from rewardsmith.sandbox.launch import run_worker
folder = Path(sys.argv[1])
result = run_worker("test", folder / "job.json", cwd=folder, log_path=folder / "log.txt", timeout_s=120,
                    command=python_command(sys.argv[2]))
print("worker ok" if result.ok else f"worker failed: {result.reason}")
"""


def installed(folder: Path, name: str) -> Path:
    """A module installed as `pip install --target` / `--user` lay it out: the module and its dist-info."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.py").write_text("print('imported from', __file__)\n")
    info = folder / f"{name}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    return folder


def start_worker(tmp_path: Path, python: str, module: str, env: dict[str, str], *flags: str) -> str:
    """A parent process (`python`, `flags`, `env`) starts a worker that runs `module`; returns both outputs."""
    work = tmp_path / f"job-{module}"
    work.mkdir()
    done = subprocess.run(
        [python, *flags, "-c", PARENT, str(work), module], env=env, capture_output=True, text=True, timeout=300
    )
    return done.stdout + done.stderr + (work / "log.txt").read_text()


def parent_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    return {**env, **extra}


def test_a_package_on_pythonpath_reaches_the_worker(tmp_path):
    target = installed(tmp_path / "target", "rs_probe_target")
    pythonpath = os.pathsep.join([str(ROOT), str(target)])
    out = start_worker(tmp_path, sys.executable, "rs_probe_target", parent_env(PYTHONPATH=pythonpath))
    assert "worker ok" in out and f"imported from {target}" in out, out


def test_a_pythonpath_folder_without_packages_does_not_cross(tmp_path, monkeypatch):
    """A folder on PYTHONPATH that holds no installed package and nothing the parent imported (a home folder with
    a .env) is not handed to the worker, so lock-down does not make it readable."""
    home = tmp_path / "home"
    home.mkdir()
    (home / ".env").write_text("OPENAI_API_KEY=sk-planted\n")
    (home / "notes.py").write_text("")
    monkeypatch.setattr(sys, "path", [*sys.path, str(home), ""])
    paths = package_paths()
    assert str(home) not in paths and "" not in paths
    assert paths[0] == str(ROOT) and sysconfig.get_paths()["purelib"] in paths  # rewardsmith first, then the venv's


def base_python() -> str:
    """The interpreter the venv was made from (a venv disables the user site)."""
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    path = Path(sys.base_prefix) / "bin" / version
    if not path.is_file() or sys.base_prefix == sys.prefix:
        pytest.skip("no separate base interpreter to run a --user parent with")
    return str(path)


def user_site(base: Path) -> Path:
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    return base / "lib" / version / "site-packages"


def test_a_user_site_the_parent_used_reaches_the_worker_with_its_pth(tmp_path):
    """`pip install --user` (PYTHONUSERBASE) and an editable install there (a .pth naming a source folder); the
    dependencies on PYTHONPATH, as a plain `pip install --target` of them would leave them."""
    base = tmp_path / "userbase"
    site_dir = installed(user_site(base), "rs_probe_user")
    source = tmp_path / "editable-src"
    source.mkdir()
    (source / "rs_probe_editable.py").write_text("print('imported from', __file__)\n")
    (site_dir / "__editable__.rs_probe_editable-1.0.pth").write_text(f"{source}\n")
    deps = sysconfig.get_paths()["purelib"]  # this venv's packages, as a PYTHONPATH folder of the base interpreter
    env = parent_env(PYTHONUSERBASE=str(base), PYTHONPATH=os.pathsep.join([str(ROOT), deps]))
    python = base_python()
    for module, where in (("rs_probe_user", site_dir), ("rs_probe_editable", source)):
        out = start_worker(tmp_path, python, module, env)
        assert "worker ok" in out and f"imported from {where}" in out, out
    # a parent that did not use its user site (-s) does not hand it to its worker
    (tmp_path / "no-user").mkdir()
    out = start_worker(tmp_path / "no-user", python, "rs_probe_user", env, "-s")
    assert "worker failed" in out and "No module named rs_probe_user" in out, out


@pytest.mark.slow
def test_a_pipx_style_console_script_trains_from_anywhere(tmp_path):
    """pipx's layout: the package lives in its own venv and the user runs a symlink to that venv's console script
    from another bin folder, with nothing else set (no activated venv, no PYTHONPATH, a folder of their own). The
    sandboxed training and evaluation workers still find every package, and the result comes back."""
    script = Path(sys.executable).parent / "rewardsmith"
    if not script.is_file():
        pytest.skip("no console script next to this interpreter (not an installed venv)")
    bin_dir = tmp_path / "pipx-bin"
    bin_dir.mkdir()
    (bin_dir / "rewardsmith").symlink_to(script)
    work = tmp_path / "somewhere"
    work.mkdir()
    reward = ROOT / "envs" / "examples" / "inverted_double_pendulum_balance.py"
    env = {"HOME": str(tmp_path), "PATH": f"{bin_dir}{os.pathsep}/usr/bin{os.pathsep}/bin", "COLUMNS": "120"}
    env.update({k: v for k, v in os.environ.items() if k in ("REWARDSMITH_ALLOW_UID0", "MUJOCO_GL")})
    done = subprocess.run(
        ["rewardsmith", "train", "inverted-double-pendulum-balance", str(reward), "--timesteps", "512"],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "fitness" in done.stdout and "Traceback" not in done.stdout + done.stderr
