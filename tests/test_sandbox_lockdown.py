"""lock_down in a real child, and the doctor probe."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from rewardsmith.errors import SandboxError
from rewardsmith.sandbox.launch import run_worker
from rewardsmith.sandbox.probe import DEFAULT_MINIMUM, LAYERS, LayerStatus, doctor_rows, require_minimum

ROOT = Path(__file__).resolve().parent.parent
CHILD = Path(__file__).with_name("sandbox_child.py")


@pytest.fixture(scope="module")
def checks(tmp_path_factory) -> dict:
    folder = tmp_path_factory.mktemp("locked")
    result = run_worker("test", folder / "job.json", cwd=folder, log_path=folder.parent / "log.txt",
                        timeout_s=240, command=[sys.executable, "-I", str(CHILD), str(ROOT),
                                                "checks", str(folder)])
    assert result.ok, result.reason + result.output_tail
    report = json.loads((folder / "result.json").read_text())
    report["folder"] = str(folder)
    return report


@pytest.mark.parametrize("attack", ["socket", "unix_socket", "fork", "write_tmp", "parent_environ",
                                    "kill_parent", "prlimit_parent", "prlimit_parent_read", "setrlimit_own",
                                    "prlimit_own", "renice_parent", "affinity_parent"])
def test_attacks_fail_after_lock_down(checks: dict, attack: str) -> None:
    assert checks[attack].startswith("blocked"), checks[attack]


def test_work_still_possible_after_lock_down(checks: dict) -> None:
    assert checks["write_inside"] == "worked: 2"
    assert (Path(checks["folder"]) / "inside.txt").read_text() == "ok"
    assert checks["thread"] == [45]
    assert checks["getrlimit_own"] == "(256, 256)"  # reading its own limits still works
    assert checks["torch"] == 256.0 ** 3
    assert checks["mujoco_steps"] == 10_000


def test_layers_report_on_or_reason(checks: dict) -> None:
    layers = checks["layers"]
    assert set(layers) == {"netns", "rlimits", "landlock", "uid-drop", "seccomp"}
    assert all(v.startswith(("on", "off: ")) for v in layers.values())
    assert layers["seccomp"].startswith("on") and layers["rlimits"].startswith("on")


def test_doctor_proves_the_minimum_here() -> None:
    rows = doctor_rows()
    assert [r[0] for r in rows] == list(LAYERS)
    status = {name: LayerStatus(ok, detail) for name, ok, detail in rows}
    from rewardsmith.settings import allow_uid0

    if not status["uid-drop"].ok:  # root with Python in a private home: only with the explicit opt-in (conftest)
        assert allow_uid0() and "Fix:" in status["uid-drop"].detail
    require_minimum([n for n in DEFAULT_MINIMUM if n != "uid-drop" or status["uid-drop"].ok], status)


def test_require_minimum_names_missing_layers() -> None:
    status = {name: LayerStatus(name != "seccomp", "x") for name in LAYERS}
    with pytest.raises(SandboxError, match=r"lacks sandbox layers seccomp required by .*doctor"):
        require_minimum(DEFAULT_MINIMUM, status)
