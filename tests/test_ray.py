"""The Ray executor: safe output archives, and a real two-node Ray cluster on 127.0.0.1 (batch run, a killed
Ray worker's candidate retried)."""

from __future__ import annotations

import io
import json
import os
import signal
import socket
import subprocess
import sys
import tarfile
import time
from pathlib import Path

import pytest

from rewardsmith.sandbox.proc import pid_alive
from rewardsmith.workers.job import WorkerJob
from rewardsmith.workers.ray_executor import TEMP_PREFIX, UnsafeArchive, job_inputs, pack_outputs, unpack_outputs

EXAMPLES = Path(__file__).parent.parent / "envs" / "examples"
SCRIPT = Path(__file__).parent / "data" / "batch_script.jsonl"
RAY = Path(sys.executable).parent / "ray"
# one machine, loopback only: Ray otherwise swaps 127.0.0.1 for the host's address; tokens off for the test cluster
RAY_ENV = {"RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0", "RAY_AUTH_MODE": "disabled", "RAY_USAGE_STATS_ENABLED": "0"}
WORKER_NODE = ("import ray._private.node as n, ray._private.parameter as p, sys; "
               "n.Node(p.RayParams(gcs_address=sys.argv[1], node_ip_address='127.0.0.1', num_cpus=1), "
               "head=False, shutdown_at_exit=False, spawn_reaper=False)")


def _archive(members: list[tuple[tarfile.TarInfo, bytes]]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for info, data in members:
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data) if info.isfile() else None)
    return buffer.getvalue()


def test_outputs_round_trip_only_allowed_files(tmp_path):
    src = tmp_path / "src"
    (src / "tb").mkdir(parents=True)
    for name in ("summary.json", "metrics.jsonl", "model.zip", "worker.log", "tb/events.out", "candidate.json"):
        (src / name).write_text(name)
    (src / "reward.py").symlink_to(src / "summary.json")
    dest = tmp_path / "dest"
    files = unpack_outputs(pack_outputs(src, "train"), dest, "train")
    assert sorted(files) == ["metrics.jsonl", "model.zip", "summary.json", "tb/events.out", "worker.log"]
    assert (dest / "tb" / "events.out").read_text() == "tb/events.out"
    with pytest.raises(Exception, match="cap"):
        pack_outputs(src, "train", cap=10)


@pytest.mark.parametrize("name, kind", [("../escape.json", tarfile.REGTYPE), ("/etc/summary.json", tarfile.REGTYPE),
                                        ("summary.json", tarfile.SYMTYPE), ("tb/../../x", tarfile.REGTYPE),
                                        ("candidate.json", tarfile.REGTYPE), ("summary.json", tarfile.LNKTYPE)])
def test_unsafe_archives_are_rejected_whole(tmp_path, name, kind):
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = "/etc/passwd" if kind != tarfile.REGTYPE else ""
    ok = tarfile.TarInfo("metrics.jsonl")
    data = _archive([(ok, b"{}\n"), (info, b"x" if kind == tarfile.REGTYPE else b"")])
    with pytest.raises(UnsafeArchive):
        unpack_outputs(data, tmp_path / "dest", "train")
    assert not (tmp_path / "dest" / "metrics.jsonl").exists()


def test_job_inputs_carry_spec_scorers_and_reward(tiny_spec, tmp_path):
    spec = tiny_spec("halfcheetah-run")
    job = WorkerJob(task_path=spec, reward_path=EXAMPLES / "halfcheetah_run.py", out_dir=tmp_path / "out")
    assert set(job_inputs(job)) == {"task/halfcheetah-run.toml", "task/scorers.py", "reward.py"}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def ray_cluster():
    """A head node (`ray start --head`) and a second worker node, one CPU each, on 127.0.0.1."""
    port = _free_port()
    address = f"127.0.0.1:{port}"
    env = {**os.environ, **RAY_ENV}
    try:
        subprocess.run([str(RAY), "start", "--head", "--node-ip-address=127.0.0.1", f"--port={port}", "--num-cpus=1",
                        "--include-dashboard=false", "--disable-usage-stats"], env=env, check=True,
                       capture_output=True, timeout=120)
        # `ray start --address` refuses a second node on one machine while Ray is kept on loopback, so the
        # worker node is started the way Ray's own multi-node tests do (a raylet that outlives this helper)
        subprocess.run([sys.executable, "-c", WORKER_NODE, address], env=env, check=True, capture_output=True,
                       timeout=120)
        yield address
    finally:
        subprocess.run([str(RAY), "stop", "--force"], env=env, capture_output=True, timeout=120)


@pytest.mark.ray
def test_batch_runs_on_a_two_node_cluster(ray_cluster, tmp_path, tiny_spec):
    for name in ("inverted-double-pendulum-balance", "reacher-reach"):
        tiny_spec(name)
    listing = tmp_path / "tasks.txt"
    listing.write_text("inverted-double-pendulum-balance.toml\nreacher-reach.toml\n")
    env = {**os.environ, **RAY_ENV, "XDG_CACHE_HOME": str(tmp_path / "cache"), "COLUMNS": "200"}
    done = subprocess.run([sys.executable, "-m", "rewardsmith", "batch", str(listing), "--executor", "ray",
                           "--ray-address", ray_cluster, "--out", str(tmp_path / "b"), "-m", f"scripted:{SCRIPT}",
                           "--iterations", "1", "--samples", "2", "--final-seeds", "1"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    summary = json.loads((tmp_path / "b" / "summary.json").read_text())
    assert [r["status"] for r in summary["tasks"]] == ["finished", "finished"]
    nodes = set()
    for attempts in (tmp_path / "b").glob("*/iter_1/cand_*/ray.json"):
        record = json.loads(attempts.read_text())["attempts"]
        assert record[-1]["status"] == "ok"
        nodes.add(record[-1]["node"])
        cand = attempts.parent
        assert {"metrics.jsonl", "summary.json", "policy.safetensors", "model.zip", "worker.log", "sandbox.json",
                "job.json", "reward.py", "analysis.json"} <= {p.name for p in cand.iterdir()}
        assert (cand / "eval" / "evaluation.json").is_file() and (cand / "eval" / "eval_episodes.jsonl").is_file()
        assert any((cand / "tb").iterdir())
        assert json.loads((cand / "job.json").read_text())["out_dir"] == str(cand)  # the driver's paths
    assert len(nodes) == 2, "both nodes should have trained candidates (4 trainings, 2 tasks at once)"


def _sandbox_workers() -> list[tuple[int, int]]:
    """(pid, pid of the Ray worker above it) of training workers running in a Ray task's temp folder: a cold
    worker is the Ray worker's child (`rewardsmith.workers.main` in its command line); a warm one is a child of
    the Ray worker's fork server and is named `rs-train` (its command line is the server's)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes()
            comm = (entry / "comm").read_text().strip()
            where = os.readlink(entry / "cwd")
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        if (b"rewardsmith.workers.main\0train" in argv or comm == "rs-train") and TEMP_PREFIX in where:
            parent = int(stat[stat.rindex(")") + 2:].split()[1])
            try:
                if b"rewardsmith.sandbox.forkserver" in Path(f"/proc/{parent}/cmdline").read_bytes():
                    server = Path(f"/proc/{parent}/stat").read_text()
                    parent = int(server[server.rindex(")") + 2:].split()[1])
            except OSError:
                continue
            found.append((int(entry.name), parent))
    return found


@pytest.mark.ray
def test_killed_ray_worker_is_retried(ray_cluster, tmp_path, tiny_spec, monkeypatch):
    for key, value in RAY_ENV.items():
        monkeypatch.setenv(key, value)
    from rewardsmith.workers.ray_executor import RayExecutor

    spec = tiny_spec("halfcheetah-run")
    executor = RayExecutor(ray_address=ray_cluster)
    try:
        job = WorkerJob(task_path=spec, reward_path=EXAMPLES / "halfcheetah_run.py", out_dir=tmp_path / "cand",
                        timesteps=8192)
        future = executor.submit(job)
        deadline = time.monotonic() + 120
        while not (workers := _sandbox_workers()):
            assert time.monotonic() < deadline and not future.done(), "the training worker never started"
            time.sleep(0.2)
        orphan, ray_worker = workers[0]
        os.kill(ray_worker, signal.SIGKILL)  # the Ray worker process dies mid-task
        result = future.result(timeout=600)
    finally:
        executor.shutdown()
    attempts = json.loads((tmp_path / "cand" / "ray.json").read_text())["attempts"]
    assert result.ok, result.error
    assert len(attempts) == 2 and "WorkerCrashedError" in attempts[0]["error"], attempts
    assert attempts[1]["status"] == "ok"
    # the sandboxed worker died with its Ray worker (PR_SET_PDEATHSIG); one that survived would be reaped here
    assert not pid_alive(orphan) and orphan not in [pid for pid, _ in _sandbox_workers()]
    assert result.summary["timesteps"] >= 8192


@pytest.mark.ray
def test_a_critic_check_runs_while_every_cluster_cpu_trains(ray_cluster, tmp_path, tiny_spec, monkeypatch):
    """The quick lane on Ray: with both CPUs of the cluster training, a critic check is placed at once (it asks
    for no whole CPU) and finishes long before the trainings do."""
    for key, value in RAY_ENV.items():
        monkeypatch.setenv(key, value)
    from rewardsmith.workers.ray_executor import RayExecutor

    spec = tiny_spec("halfcheetah-run")
    executor = RayExecutor(ray_address=ray_cluster)
    try:
        # long enough that a check placed at once ends well before them: at 8,192 steps (~15 s each once round 10
        # cut the learning curve's episodes) a quiet CI machine finished a training before the check came back
        trainings = [executor.submit(WorkerJob(task_path=spec, reward_path=EXAMPLES / "halfcheetah_run.py",
                                               out_dir=tmp_path / f"train-{k}", timesteps=65536)) for k in range(2)]
        deadline = time.monotonic() + 120
        while len(_sandbox_workers()) < 2:  # both CPUs busy training
            assert time.monotonic() < deadline, "the trainings never started"
            time.sleep(0.2)
        check = executor.submit(WorkerJob(mode="critic", task_path=spec, reward_path=EXAMPLES / "halfcheetah_run.py",
                                          out_dir=tmp_path / "critic"))
        assert check.result(timeout=300).ok
        assert not any(t.done() for t in trainings), "the critic check waited for a training to finish"
        assert all(t.result(timeout=600).ok for t in trainings)
    finally:
        executor.shutdown()
