"""Clean start and supervision of workers (run_worker with small stand-in commands)."""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path

from conftest import children_of

from rewardsmith.sandbox.command import worker_command
from rewardsmith.sandbox.launch import PASSTHROUGH_ENV, THREAD_VARS, StallClock, kill_leftovers, run_worker


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


def test_stall_clock_counts_only_time_the_worker_could_have_sent_a_heartbeat() -> None:
    """Quiet time on time-kept polls stalls; a late poll (the supervisor itself did not run: a paused VM) and a worker
    in disk sleep (its writes held by a saturated disk) do not count; a new heartbeat starts the clock again."""
    clock = StallClock(limit_s=2.0, now=0.0)
    assert not any(clock.stalled(t / 2, None, "R") for t in range(1, 5))  # 2.0 s quiet: not past the limit
    assert clock.stalled(2.5, None, "S")
    paused = StallClock(limit_s=2.0, now=0.0)
    assert not paused.stalled(1.0, None, "R") and not paused.stalled(300.0, None, "R")  # one late poll: a pause
    assert not paused.stalled(301.0, None, "R") and paused.stalled(302.0, None, "R")  # then counted again
    disk = StallClock(limit_s=2.0, now=0.0)
    assert not any(disk.stalled(t / 2, None, "D") for t in range(1, 200))  # 100 s held by the disk
    beating = StallClock(limit_s=2.0, now=0.0)
    assert not any(beating.stalled(t / 2, float(t // 3), "R") for t in range(1, 200))  # a beat every 1.5 s


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


PARENT = """
import sys
from pathlib import Path
sys.path.insert(0, {root!r})
from rewardsmith.sandbox.command import python_command
from rewardsmith.sandbox.launch import run_worker
folder = Path({folder!r})
run_worker("test", folder / "job.json", cwd=folder, log_path=folder / "log.txt", timeout_s=120,
           command=python_command("timeit", "-n", "1", "import time; time.sleep(100)"))
"""


def test_worker_dies_with_its_parent(tmp_path: Path) -> None:
    """PR_SET_PDEATHSIG: a parent killed with SIGKILL (no cleanup at all) takes its worker along."""
    import os
    import signal
    import subprocess

    from rewardsmith.sandbox.proc import pid_alive

    root = str(Path(__file__).resolve().parent.parent)
    parent = subprocess.Popen([sys.executable, "-c", PARENT.format(root=root, folder=str(tmp_path))])
    try:
        deadline = time.monotonic() + 30
        while not (workers := children_of(parent.pid)) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert workers, "the worker did not start"
        time.sleep(1.0)  # past the bootstrap's prctl
        assert all(pid_alive(pid) for pid in workers)
        os.kill(parent.pid, signal.SIGKILL)
        parent.wait()
        deadline = time.monotonic() + 30  # generous for a starved machine; the worker would otherwise sleep 100 s
        while any(pid_alive(pid) for pid in workers) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not any(pid_alive(pid) for pid in workers), "the worker outlived its parent"
    finally:
        parent.kill()


def test_worker_whose_parent_died_before_the_prctl_exits(tmp_path: Path) -> None:
    """The race: the bootstrap compares getppid() with the parent that started it, after the prctl."""
    import subprocess

    from rewardsmith.sandbox.command import EXIT_ORPHANED, python_command

    argv = python_command("timeit", "-n", "1", "pass")
    assert argv[5] == str(__import__("os").getpid())
    argv[5] = "1"  # as if the parent had died and the worker been re-parented before the check
    assert subprocess.run(argv, capture_output=True, timeout=60).returncode == EXIT_ORPHANED
    argv[5] = str(__import__("os").getpid())
    assert subprocess.run(argv, capture_output=True, timeout=60).returncode == 0


def test_folder_quota_kills_and_names_the_quota(tmp_path: Path) -> None:
    code = ("import time\nfor i in range(6):\n    open(f'f{i}', 'wb').write(b'x' * (2 << 20))\ntime.sleep(60)")
    start = time.monotonic()
    result = run(tmp_path, code, quota_bytes=8 << 20)
    assert result.over_quota and not result.ok and time.monotonic() - start < 20
    assert "over the 8 MiB quota" in result.reason


def test_folder_quota_counts_entries_and_checks_after_exit(tmp_path: Path) -> None:
    code = "import os\nfor i in range(3):\n    open(f'f{i}', 'wb').write(b'x' * (4 << 20))\n"
    result = run(tmp_path, code, quota_bytes=8 << 20)  # exits at once, before a poll: the check after the exit
    assert result.over_quota and result.returncode == 0 and not result.ok
