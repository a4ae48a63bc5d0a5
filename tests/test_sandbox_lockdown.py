"""lock_down in a real child, and the doctor probe."""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import pytest

from rewardsmith.errors import SandboxError
from rewardsmith.sandbox.launch import run_worker
from rewardsmith.sandbox.probe import DEFAULT_MINIMUM, LAYERS, LayerStatus, doctor_rows, require_minimum

ROOT = Path(__file__).resolve().parent.parent
CHILD = Path(__file__).with_name("sandbox_child.py")
SETTINGS_PROCESSES = 64  # sandbox_child.SETTINGS keeps the default process limit


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
                                    "prlimit_own", "renice_parent", "affinity_parent", "sysv_shm", "sysv_msg"])
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
    assert set(layers) == {"netns", "ipc-ns", "pids", "rlimits", "landlock", "uid-drop", "seccomp"}
    assert all(v.startswith(("on", "off: ")) for v in layers.values())
    assert layers["seccomp"].startswith("on") and layers["rlimits"].startswith("on")


def test_thread_limit_holds_also_for_uid_0(checks: dict) -> None:
    """RLIMIT_NPROC does not bind root: the pids cgroup (or, after a uid drop, RLIMIT_NPROC) stops a thread bomb at the
    limit, below what memory would allow."""
    pids = checks["layers"]["pids"]
    if pids.startswith("off"):
        pytest.skip(f"no process limit can hold on this machine: {pids}")
    assert checks["threads_started"] < SETTINGS_PROCESSES, (checks["threads_started"], pids)


def test_ipc_namespace_of_its_own_where_root(checks: dict) -> None:
    ipc = checks["layers"]["ipc-ns"]
    assert checks["own_ipc_namespace"] == ipc.startswith("on"), ipc
    if os.geteuid() == 0:  # the worker starts as root too: it can always make one
        assert ipc.startswith("on"), ipc


def test_a_gpu_worker_may_start_processes_but_no_program(tmp_path: Path) -> None:
    """A GPU worker's seccomp filter allows new processes (XLA starts `ptxas` from threads it made before lock-down);
    Landlock still grants the execute right nowhere, so neither the worker nor its children can run a program; its
    address-space limit counts beyond what it held at lock-down (a CUDA context reserves tens of GiB)."""
    result = run_worker("test", tmp_path / "job.json", cwd=tmp_path, log_path=tmp_path.parent / "log.txt",
                        timeout_s=120, command=[sys.executable, "-I", str(CHILD), str(ROOT), "gpu", str(tmp_path)])
    assert result.ok, result.reason + result.output_tail
    checks = json.loads((tmp_path / "result.json").read_text())
    layers = checks["layers"]
    assert checks["exec"].startswith("blocked"), checks["exec"]
    if not (layers["landlock"].startswith("on") and layers["pids"].startswith("on")):
        # without Landlock's execute rule or a process limit, seccomp keeps denying new processes (XLA then fails
        # and the run trains the candidate on the CPU backend)
        assert "new processes allowed" not in layers["seccomp"] and checks["fork_then_exec"].startswith("blocked")
        return
    assert "new processes allowed (GPU worker)" in layers["seccomp"]
    assert checks["fork_then_exec"] == "worked: 13", checks["fork_then_exec"]  # the child's exec failed too
    assert checks["socket"].startswith("blocked") and checks["write_tmp"].startswith("blocked")
    memory = int(re.search(r"as=(\d+)MiB", layers["rlimits"]).group(1))
    assert memory > 2048  # sandbox_child's memory_mb, plus the address space held at lock-down
    assert checks["threads_started"] < 1000  # the limit still holds, with the GPU's headroom


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
