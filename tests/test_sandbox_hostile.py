"""The hostile corpus: every program in tests/hostile/ against the gate and against the OS layers.

Each program states its attack and expected outcome in its header (`# gate:`, `# outcome:`).
The OS-layer run loads it with the gate OFF, so the layers must hold on their own. A "runner"
takes (program, work folder, environment) and returns a RunOutcome; the lead can add runners for
the real critic and training paths to RUNNERS.
"""

from __future__ import annotations

import dataclasses
import glob
import json
import os
import socket
import subprocess
import sys
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

from rewardsmith.sandbox.policy import check_source

ROOT = Path(__file__).resolve().parent.parent
CHILD = Path(__file__).with_name("sandbox_child.py")
CORPUS = sorted(Path(__file__).with_name("hostile").glob("*.py"))
ESCAPE_GLOBS = ("/tmp/rewardsmith-hostile-*", "/dev/shm/rewardsmith-hostile-*",
                "/etc/rewardsmith-hostile-*")
OUTPUT_CAP = 1_000_000


@dataclasses.dataclass
class RunOutcome:
    """What a runner observed: the worker result, the child's report (None if it died)."""

    worker: dict
    report: dict | None
    log_bytes: int


def header(program: Path, key: str) -> str:
    for line in program.read_text().splitlines():
        if line.startswith(f"# {key}:"):
            return line.split(":", 1)[1].strip()
    raise AssertionError(f"{program.name} lacks a '# {key}:' header line")


def run_locked_child(program: Path, work: Path, env: dict[str, str]) -> RunOutcome:
    """Gate off: a supervisor (holding the planted key in its real environment) runs
    sandbox_child.py, which locks down, loads the program and calls it on read-only states."""
    out = work / "out"
    result_path = work / "worker.json"
    argv = [sys.executable, "-I", str(CHILD), str(ROOT), "reward", str(out), str(work / "reward.py")]
    subprocess.run([sys.executable, "-I", str(CHILD), str(ROOT), "supervise", str(result_path),
                    *argv], env=env, check=True, timeout=120)
    report_path = out / "result.json"
    report = json.loads(report_path.read_text()) if report_path.exists() else None
    return RunOutcome(json.loads(result_path.read_text()), report,
                      result_path.with_suffix(".log").stat().st_size)


RUNNERS: dict[str, Callable[[Path, Path, dict[str, str]], RunOutcome]] = {
    "locked-child": run_locked_child,
}


@pytest.mark.parametrize("program", CORPUS, ids=lambda p: p.stem)
def test_gate_verdict_matches_header(program: Path) -> None:
    findings = check_source(program.read_text())
    expected = header(program, "gate")
    assert expected in {"reject", "pass"}
    assert bool(findings) == (expected == "reject"), [str(f) for f in findings]


@pytest.fixture
def listener():
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    server.setblocking(False)
    yield server
    server.close()


def _cleanup_escapes() -> None:
    for pattern in ESCAPE_GLOBS:
        for path in glob.glob(pattern):
            os.remove(path)


def _processes_mentioning(text: str) -> list[int]:
    pids = []
    for name in os.listdir("/proc"):
        try:
            if name.isdigit() and text.encode() in Path(f"/proc/{name}/cmdline").read_bytes():
                pids.append(int(name))
        except OSError:
            continue
    return pids


@pytest.mark.parametrize("runner", sorted(RUNNERS))
@pytest.mark.parametrize("program", CORPUS, ids=lambda p: p.stem)
def test_os_layers_contain(program: Path, runner: str, tmp_path: Path, listener) -> None:
    _cleanup_escapes()
    secret = f"sk-planted-{uuid.uuid4().hex}"
    work = tmp_path / "cand"
    (work / "out").mkdir(parents=True)
    source = program.read_text()
    (work / "reward.py").write_text(source)
    env = {"PATH": os.environ.get("PATH", ""), "OPENAI_API_KEY": secret,
           "HOSTILE_PORT": str(listener.getsockname()[1]), "SANDBOX_TEST_FOLDER": str(work / "out"),
           "SANDBOX_TEST_TIMEOUT": "10"}
    try:
        outcome = RUNNERS[runner](program, work, env)
        escaped = [p for pattern in ESCAPE_GLOBS for p in glob.glob(pattern)]
    finally:
        _cleanup_escapes()
    assert not escaped, f"files written outside the folder: {escaped}"
    with pytest.raises(BlockingIOError):
        listener.accept()  # nothing connected to 127.0.0.1
    leaked = [p for p in work.rglob("*") if p.is_file() and secret.encode() in p.read_bytes()]
    assert not leaked, f"planted secret found in {leaked}"
    assert secret not in json.dumps(outcome.report)
    assert not _processes_mentioning(str(work)), "a process of the worker survived"
    assert (work / "reward.py").read_text() == source, "the reward file was modified"
    assert outcome.log_bytes <= OUTPUT_CAP + 100
    _assert_outcome(header(program, "outcome"), outcome)


def _assert_outcome(expected: str, outcome: RunOutcome) -> None:
    worker = outcome.worker
    if expected == "killed":
        assert worker["reason"] and (worker["timed_out"] or worker["signal"]), worker
        return
    assert worker["reason"] == "", worker
    assert outcome.report is not None
    assert outcome.report["layers"]["seccomp"].startswith("on")
    calls = outcome.report["outcomes"]
    if expected == "ok":
        assert all("returned" in call for call in calls), calls
    else:
        assert expected == "raised"
        assert any("raised" in call for call in calls), calls
