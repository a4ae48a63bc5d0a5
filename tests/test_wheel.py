"""A non-editable install works: the wheel carries the prompts and the shipped task specs (package data)."""

from __future__ import annotations

import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.slow
def test_wheel_installs_and_runs_describe_and_check(tmp_path):
    dist = tmp_path / "dist"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(dist),
                    str(ROOT)], check=True, capture_output=True, timeout=300)
    wheel = next(dist.glob("rewardsmith-*.whl"))
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    site = next((venv / "lib").glob("python3*/site-packages"))
    # the dependencies come from this environment (no network, no second torch); rewardsmith only from the wheel
    (site / "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    subprocess.run([venv / "bin" / "python", "-m", "pip", "install", "--no-deps", "-q", str(wheel)], check=True,
                   capture_output=True, timeout=300)
    work = tmp_path / "elsewhere"  # not the checkout, so nothing is found through the source tree
    work.mkdir()
    where = subprocess.run([venv / "bin" / "python", "-c", "import rewardsmith; print(rewardsmith.__file__)"],
                           cwd=work, capture_output=True, text=True, check=True).stdout
    assert str(site) in where, where
    describe = subprocess.run([venv / "bin" / "rewardsmith", "describe", "hopper-hop"], cwd=work, capture_output=True,
                              text=True, timeout=300)
    assert describe.returncode == 0, describe.stderr
    assert "rooty" in describe.stdout
    example = site / "rewardsmith_envs" / "examples" / "halfcheetah_run.py"
    assert example.is_file()
    check = subprocess.run([venv / "bin" / "rewardsmith", "check", "halfcheetah-run", str(example)], cwd=work,
                           capture_output=True, text=True, timeout=300)
    assert check.returncode == 0, check.stdout + check.stderr
