"""Warm workers: jobs forked by the pre-imported fork server are as clean and as supervised as cold ones."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import children_of

from rewardsmith.sandbox import forkserver
from rewardsmith.sandbox.launch import PASSTHROUGH_ENV, THREAD_VARS
from rewardsmith.workers.job import WorkerJob
from rewardsmith.workers.run import run_job

ENVS = Path(__file__).resolve().parent.parent / "envs"
# Runs at module load, after lock-down (the AST gate is off for this test only): what can the worker see?
SNOOP = """
import json, os
fds = {}
for fd in os.listdir('/proc/self/fd'):
    try:
        fds[fd] = os.readlink('/proc/self/fd/' + fd)
    except OSError as exc:
        fds[fd] = str(exc)
try:
    parent_env = open('/proc/%d/environ' % os.getppid(), 'rb').read().decode(errors='replace')
except OSError as exc:
    parent_env = 'unreadable: ' + type(exc).__name__
json.dump({'pid': os.getpid(), 'ppid': os.getppid(), 'sid': os.getsid(0), 'fds': fds, 'env': dict(os.environ),
           'parent_env': parent_env}, open('snoop.json', 'w'))
{tail}

def compute_reward(state, action, next_state):
    return 0.0, {}
"""


def critic_job(folder: Path, tail: str = "", **options) -> WorkerJob:
    folder.mkdir(parents=True, exist_ok=True)
    reward = folder / "reward.py"
    reward.write_text(SNOOP.replace("{tail}", tail))
    return WorkerJob(mode="critic", task_path=ENVS / "inverted-double-pendulum-balance.toml", reward_path=reward,
                     out_dir=folder, ast_gate=False, options=options)


@pytest.fixture
def fresh_server(monkeypatch):
    """A fork server of this test's own, stopped afterwards (the process-wide one is left as it was)."""
    monkeypatch.setenv(forkserver.ENV_SWITCH, "1")
    monkeypatch.setattr(forkserver, "_shared", None)
    monkeypatch.setattr(forkserver, "_shared_failed", "")
    yield
    if forkserver._shared is not None:
        forkserver._shared.close()


def test_a_warm_worker_is_forked_clean_and_sees_no_secret(tmp_path: Path, monkeypatch, fresh_server) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-planted-forkserver")
    result = run_job(critic_job(tmp_path / "a"))
    assert result.status in ("ok", "rejected"), result.error
    seen = json.loads((tmp_path / "a" / "snoop.json").read_text())
    server = forkserver._shared
    assert server is not None and seen["ppid"] == server.pid  # forked by the server, not started cold
    assert seen["sid"] == seen["pid"]  # its own session, so the parent's group kill reaches everything it starts
    assert not any(target.startswith("socket:") for target in seen["fds"].values()), seen["fds"]
    allowed = {"PATH", "HOME", "LANG", "PYTHONDONTWRITEBYTECODE", *THREAD_VARS, *PASSTHROUGH_ENV}
    if os.environ.get("MUJOCO_GL") in ("osmesa", "egl"):  # mujoco's GL backend sets it in the worker on import
        allowed.add("PYOPENGL_PLATFORM")
    assert set(seen["env"]) <= allowed and seen["env"]["HOME"] == str(tmp_path / "a")
    assert "planted" not in json.dumps(seen)  # neither its own environment nor the server's holds the key
    sandbox = json.loads((tmp_path / "a" / "sandbox.json").read_text())
    assert sandbox["seccomp"].startswith("on") and sandbox["landlock"].startswith("on")
    # a second job gets a new process from the same server
    run_job(critic_job(tmp_path / "b"))
    again = json.loads((tmp_path / "b" / "snoop.json").read_text())
    assert again["ppid"] == server.pid and again["pid"] != seen["pid"]
    server.close()
    assert not Path(server._home).exists()  # the server's own HOME goes with it


def test_a_warm_worker_that_hangs_is_killed_and_reaped(tmp_path: Path, fresh_server) -> None:
    started = time.monotonic()
    result = run_job(critic_job(tmp_path / "hang", tail="import time; time.sleep(600)", timeout_s=4))
    assert result.status != "ok" and "timed out" in result.error
    assert time.monotonic() - started < 60
    server = forkserver._shared
    assert server is not None
    assert children_of(server.pid) == []  # killed, and reaped by the server: no worker, no zombie left



@pytest.mark.slow  # a whole child interpreter with its own fork server: ~5 s
def test_the_servers_home_folder_is_removed_on_close_and_when_its_parent_exits(tmp_path: Path) -> None:
    # every CLI run used to leave an empty rewardsmith-forkserver-* folder in the temp dir
    temp = tmp_path / "tmp"
    temp.mkdir()
    script = f"""
import os, sys
sys.path.insert(0, {str(Path(__file__).parent)!r})
from test_forkserver import critic_job
from pathlib import Path
from rewardsmith.sandbox import forkserver
from rewardsmith.workers.run import run_job
run_job(critic_job(Path({str(tmp_path / "job")!r})))
assert forkserver._shared is not None
print(os.getpid())
print(forkserver._shared._home)
"""
    env = {**os.environ, "TMPDIR": str(temp), forkserver.ENV_SWITCH: "1"}
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    home = Path(done.stdout.strip().splitlines()[-1])
    assert home.parent == temp and not home.exists()
    assert home.name.startswith(f"{forkserver.HOME_PREFIX}{done.stdout.strip().splitlines()[-2]}-")
    assert not [p for p in temp.iterdir() if p.name.startswith("rewardsmith-forkserver-")]


def test_the_home_of_a_server_whose_parent_was_killed_is_removed_by_the_next_server(tmp_path: Path) -> None:
    # a parent killed by SIGKILL runs no clean-up: every killed run used to leave its server's home behind
    gone = subprocess.Popen(["true"])
    gone.wait()
    stale = tmp_path / f"{forkserver.HOME_PREFIX}{gone.pid}-abc123"
    live = tmp_path / f"{forkserver.HOME_PREFIX}{os.getpid()}-def456"
    unknown = tmp_path / f"{forkserver.HOME_PREFIX}x1y2z3"
    for home in (stale, live, unknown):
        home.mkdir()
    (stale / "cache").mkdir()
    (stale / "cache" / "file").write_text("left by an import")
    precious = tmp_path / "precious"
    precious.mkdir()
    (tmp_path / f"{forkserver.HOME_PREFIX}{gone.pid}-planted").symlink_to(precious)
    assert forkserver.remove_stale_homes(tmp_path) == [stale]
    assert not stale.exists() and live.exists() and unknown.exists() and precious.exists()


@pytest.mark.slow
def test_a_dead_server_is_replaced_and_the_switch_turns_it_off(tmp_path: Path, monkeypatch, fresh_server) -> None:
    run_job(critic_job(tmp_path / "first"))
    first = forkserver._shared
    assert first is not None
    os.kill(first.pid, signal.SIGKILL)
    first._proc.wait()
    run_job(critic_job(tmp_path / "second"))
    second = json.loads((tmp_path / "second" / "snoop.json").read_text())
    assert forkserver._shared is not None and second["ppid"] == forkserver._shared.pid != first.pid
    monkeypatch.setenv(forkserver.ENV_SWITCH, "0")
    run_job(critic_job(tmp_path / "cold"))
    cold = json.loads((tmp_path / "cold" / "snoop.json").read_text())
    assert cold["ppid"] == os.getpid()  # started cold, by this process


def test_doctor_says_whether_workers_start_warm(monkeypatch) -> None:
    from typer.testing import CliRunner

    from rewardsmith.cli import app

    for switch, said in (("1", "workers: warm"), ("0", "workers: cold")):
        monkeypatch.setenv(forkserver.ENV_SWITCH, switch)
        result = CliRunner().invoke(app, ["doctor"], env={"COLUMNS": "300"})
        assert result.exit_code == 0 and said in result.output, result.output


LATE = """
import importlib, sys
from rewardsmith.workers.main import WARM_IMPORTS
for name in WARM_IMPORTS:
    importlib.import_module(name)
before = set(sys.modules)
print("mujoco-preloaded" if "mujoco" in before else "mujoco-not-preloaded")
from rewardsmith.task import load_task, make_env
from rewardsmith.workers.evaluate import build_policy
spec = load_task("hopper-hop")
env = make_env(spec)
build_policy(spec, env.observation_space, env.action_space)  # its optimizer, as every train and evaluate job's
print(" ".join(sorted(set(sys.modules) - before)))
"""


def test_the_fork_server_preloads_what_every_training_and_evaluation_imports_late() -> None:
    # torch's first optimizer imports torch._dynamo (with sympy: ~800 modules, 1.5 s of CPU per worker): a forked
    # worker must find it already imported; MuJoCo must not be (the video worker sets MUJOCO_GL before importing it)
    import subprocess
    import sys

    env = {**os.environ, **{name: "1" for name in THREAD_VARS}}
    # a user's MUJOCO_GL=osmesa makes mujoco's import load PyOpenGL too (~230 modules, 0.07 s of CPU), which the server
    # must not preload either: the video worker picks the GL backend
    env = {name: value for name, value in env.items() if name not in ("MUJOCO_GL", "PYOPENGL_PLATFORM")}
    done = subprocess.run([sys.executable, "-c", LATE], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    preloaded, *late = done.stdout.split()
    assert preloaded == "mujoco-not-preloaded"
    assert not [name for name in late if name.startswith(("torch._dynamo", "sympy"))], late
    assert len(late) < 100, late  # Gymnasium's MuJoCo envs and their renderer: about 60
