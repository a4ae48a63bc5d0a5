"""Clean start and supervision of workers (run_worker with small stand-in commands)."""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path

from rewardsmith.sandbox.launch import PASSTHROUGH_ENV, THREAD_VARS, kill_leftovers, run_worker, worker_command


def run(tmp_path: Path, code: str, **kwargs):
    kwargs.setdefault("timeout_s", 30)
    return run_worker("test", tmp_path / "job.json", cwd=tmp_path, log_path=tmp_path / "log.txt",
                      command=[sys.executable, "-I", "-c", code], **kwargs)


def test_worker_command_is_isolated_module_run() -> None:
    argv = worker_command("train", Path("/x/job.json"))
    assert argv[:3] == [sys.executable, "-I", "-c"]
    assert argv[-3:] == ["rewardsmith.workers.main", "train", "/x/job.json"]


def test_environment_is_an_allow_list(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-planted-launch")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "planted-aws")
    result = run(tmp_path, "import os, sys; print(dict(os.environ)); print(sys.flags.isolated)",
                 extra_env={"EXTRA": "yes"})
    assert result.ok, result.reason
    log = (tmp_path / "log.txt").read_text()
    assert "planted" not in log
    env = eval(log.splitlines()[0])
    allowed = {"PATH", "HOME", "LANG", "PYTHONDONTWRITEBYTECODE", "EXTRA", *THREAD_VARS,
               *PASSTHROUGH_ENV}
    assert set(env) <= allowed and env["HOME"] == str(tmp_path)
    assert log.splitlines()[1] == "1"


def test_timeout_kills_the_group_with_grandchildren(tmp_path: Path) -> None:
    code = ("import subprocess, time; p = subprocess.Popen(['sleep', '300']); "
            "open('grandchild.pid', 'w').write(str(p.pid)); time.sleep(300)")
    start = time.monotonic()
    result = run(tmp_path, code, timeout_s=3)
    assert result.timed_out and "timed out" in result.reason
    assert time.monotonic() - start < 15
    grandchild = int((tmp_path / "grandchild.pid").read_text())
    assert not Path(f"/proc/{grandchild}").exists() or "Z" in Path(f"/proc/{grandchild}/stat").read_text().split()[2]


def test_segfault_is_reported(tmp_path: Path) -> None:
    result = run(tmp_path, "import ctypes; ctypes.c_char.from_address(0xDEADBEEF000).value")
    assert result.signal == 11 and result.reason == "crashed with SIGSEGV"


def test_nonzero_exit_and_tail(tmp_path: Path) -> None:
    result = run(tmp_path, "import sys; print('boom at the end'); sys.exit(3)")
    assert result.returncode == 3 and result.reason == "exited with code 3"
    assert "boom at the end" in result.output_tail


def test_output_flood_is_capped(tmp_path: Path) -> None:
    result = run(tmp_path, "import sys\nfor _ in range(50): sys.stdout.write('A' * 100_000)\n"
                           "print('LAST')", output_cap_bytes=200_000)
    assert result.ok
    log = (tmp_path / "log.txt").read_bytes()
    assert len(log) < 200_100 and log.endswith(b"[output truncated]\n")
    assert "LAST" in result.output_tail


def test_stall_without_heartbeat_kills(tmp_path: Path) -> None:
    heartbeat = tmp_path / "heartbeat"
    code = ("import time\nfor _ in range(3):\n    open('heartbeat', 'w').close(); time.sleep(0.3)\n"
            "time.sleep(300)")
    polls: list[float] = []
    result = run(tmp_path, code, heartbeat_path=heartbeat, stall_timeout_s=2,
                 on_poll=lambda: polls.append(time.monotonic()))
    assert result.stalled and not result.timed_out and "heartbeat" in result.reason
    assert len(polls) >= 4


def test_many_workers_from_threads(tmp_path: Path) -> None:
    results = {}

    def one(i: int) -> None:
        folder = tmp_path / str(i)
        folder.mkdir()
        results[i] = run(folder, f"print({i} * 7)")

    threads = [threading.Thread(target=one, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(results[i].ok and results[i].output_tail.strip() == str(i * 7) for i in range(4))


def test_kill_leftovers_finds_session_members(tmp_path: Path) -> None:
    import subprocess

    leader = subprocess.Popen([sys.executable, "-I", "-c",
                               "import subprocess, time; subprocess.Popen(['sleep', '300']); "
                               "time.sleep(300)"], start_new_session=True)
    time.sleep(1.0)
    assert kill_leftovers(leader.pid) >= 1  # the sleep grandchild (the leader is excluded)
    leader.kill()
    leader.wait()
