"""The hostile corpus: every program in tests/hostile/ through the real critic and training paths.

Each program states its attack and expected verdicts in its header: `# gate:` (the AST policy's verdict),
`# critic:` and `# train:` (the verdict of that path when the program's code runs: gate off, or a program
the gate passes). With the gate on, a program the gate rejects must be rejected statically on both paths.

Every (program, path, gate on/off) run happens in its own run folder, while the parent (this pytest
process) holds a planted API key in its real environment and a listener on 127.0.0.1. Each run must be
rejected or contained, with its reason recorded: no file created outside the candidate folder, no
connection, no secret in any file or reason, no process left behind, the parent alive, the run folder
intact. Runs go through a small thread pool (the workers are processes) to fit the CI budget.
"""

from __future__ import annotations

import dataclasses
import glob
import hashlib
import json
import os
import re
import socket
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from conftest import make_tiny_spec

from rewardsmith.run_folder.names import CRITIC_DIR, JOB_FILE
from rewardsmith.sandbox.lockdown import SANDBOX_UID_BASE, SandboxSettings
from rewardsmith.sandbox.policy import check_source
from rewardsmith.stages.critic import critique, dynamic_findings
from rewardsmith.task import TaskSpec, read_task
from rewardsmith.workers.executor import LocalExecutor
from rewardsmith.workers.job import WorkerJob
from rewardsmith.workers.run import run_job

EXECUTOR = LocalExecutor(workers=2)
"""The worker pool of this module's stage calls (a stage takes its executor explicitly)."""

CORPUS = sorted(Path(__file__).with_name("hostile").glob("*.py"))
TASK = "inverted-double-pendulum-balance"
ESCAPE_GLOBS = ("/tmp/rewardsmith-hostile-*", "/dev/shm/rewardsmith-hostile-*", "/etc/rewardsmith-hostile-*")
SYSV_KEYS = {0x52534831, 0x52534832}
"""Keys of the SysV objects hostile/ipc_sysv_leftovers.py makes: none may be left on the host afterwards."""
OUTPUT_CAP = 1_000_000
PARALLEL = 3
CRITIC_TIMEOUT_S = 10
CRITIC_OPTIONS = {"transitions": 20, "episode_steps": 20, "eval_time_limit_s": 2.0}
TRAIN_OPTIONS = {"timeout_s": 60, "stall_timeout_s": 60, "final_eval_episodes": 1}
TRAIN_SANDBOX = SandboxSettings(cpu_s=12, folder_mb=64)
"""CPU seconds, not wall: a busy loop dies after the same work however loaded the CI machine is. The folder
quota is the critic's (a smaller disk bill for folder_quota.py)."""
KILLED = re.compile(r"timed out after|crashed with|sent no heartbeat")
GATES = {"gate-on": True, "gate-off": False}


def _expected(program: Path, runner: str, gate: bool) -> str:
    return "static" if gate and header(program, "gate") == "reject" else header(program, runner)


@dataclasses.dataclass
class Outcome:
    """What a runner saw: a verdict word, the recorded reason, and the folder its worker wrote to."""

    verdict: str
    reason: str
    worker_dir: Path


def header(program: Path, key: str) -> str:
    for line in program.read_text().splitlines():
        if line.startswith(f"# {key}:"):
            return line.split(":", 1)[1].strip()
    raise AssertionError(f"{program.name} lacks a '# {key}:' header line")


def run_critic(spec: TaskSpec, cand: Path, gate: bool) -> Outcome:
    """The critic: `critique` with the gate on; with it off, the critic's own dynamic stage (critique
    always runs the static stage, its `ast_gate` only reaches the worker). Verdict: "accepted",
    "static", "killed" or the first error's code (exception, contract, too-slow, worker)."""
    reward = cand / "reward.py"
    if gate:
        errors = critique(spec, reward, cand, timeout_s=CRITIC_TIMEOUT_S, options=CRITIC_OPTIONS, model=None, executor=EXECUTOR, env_description=None).errors
    else:
        findings, _ = dynamic_findings(spec, reward, cand / CRITIC_DIR, ast_gate=False, timeout_s=CRITIC_TIMEOUT_S,
                                       options=CRITIC_OPTIONS, executor=EXECUTOR)
        errors = [f for f in findings if f.severity == "error"]
    if not errors:
        return Outcome("accepted", "", cand / CRITIC_DIR)
    first = errors[0]
    verdict = "static" if first.stage == "static" else "killed" if KILLED.search(first.message) else first.code
    return Outcome(verdict, "\n".join(map(str, errors)), cand / CRITIC_DIR)


def run_train(spec: TaskSpec, cand: Path, gate: bool) -> Outcome:
    """The trainer: `run_job` in train mode. Verdict: "accepted" (status ok), "static" (the worker's gate),
    "killed", else "rejected"/"failed" as the JobResult says."""
    reward = cand / "reward.py"
    job = WorkerJob(mode="train", task_path=spec.source, reward_path=reward, out_dir=cand, timesteps=256,
                    ast_gate=gate, sandbox=TRAIN_SANDBOX, options=TRAIN_OPTIONS)
    result = run_job(job)
    if result.ok:
        return Outcome("accepted", "", cand)
    verdict = "killed" if KILLED.search(result.error) else \
        "static" if result.error.startswith(f"{reward.resolve()}:") else result.status
    return Outcome(verdict, result.error, cand)


RUNNERS: dict[str, Callable[[TaskSpec, Path, bool], Outcome]] = {"critic": run_critic, "train": run_train}


@pytest.mark.parametrize("program", CORPUS, ids=lambda p: p.stem)
def test_gate_verdict_matches_header(program: Path) -> None:
    findings = check_source(program.read_text())
    expected = header(program, "gate")
    assert expected in {"reject", "pass"}
    assert bool(findings) == (expected == "reject"), [str(f) for f in findings]


def _escapes() -> list[str]:
    return [path for pattern in ESCAPE_GLOBS for path in glob.glob(pattern)]


def _sysv_objects() -> list[str]:
    """SysV shared memory segments, message queues and semaphore sets on the host with a hostile program's key."""
    found = []
    for kind in ("shm", "msg", "sem"):
        path = Path("/proc/sysvipc") / kind
        lines = path.read_text().splitlines()[1:] if path.exists() else []
        found += [f"{kind} key {int(line.split()[0]):#x}" for line in lines if int(line.split()[0]) in SYSV_KEYS]
    return found


def _remove_sysv_objects() -> None:
    """Remove what an earlier (failed) run left, so each run is judged on its own."""
    import ctypes

    libc = ctypes.CDLL(None)
    for key in SYSV_KEYS:
        for get, ctl, args in ((libc.shmget, libc.shmctl, (0, 0)), (libc.msgget, libc.msgctl, (0,))):
            ident = get(key, *args)
            if ident >= 0:
                ctl(ident, 0, None)  # IPC_RMID


def _tree(folder: Path, skip: Path | None = None) -> dict[str, str]:
    """Relative path -> content hash of every file under `folder` (except under `skip` and bytecode caches)."""
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "dir"
            for p in sorted(folder.rglob("*"))
            if "__pycache__" not in p.parts and (skip is None or not p.is_relative_to(skip))}


def _leftovers(worker_dir: Path, cand: Path) -> list[int]:
    """Live processes of this run: its sandbox uid (the worker chowns its folder to it) or naming its folder."""
    owner = worker_dir.stat().st_uid if worker_dir.exists() else 0
    pids = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            stat = Path(f"/proc/{name}/stat").read_text()
            uid = Path(f"/proc/{name}").stat().st_uid
            cmdline = Path(f"/proc/{name}/cmdline").read_bytes()
        except OSError:
            continue
        alive = stat[stat.rindex(")") + 2] != "Z"
        if alive and ((owner >= SANDBOX_UID_BASE and uid == owner) or str(cand.resolve()).encode() in cmdline):
            pids.append(int(name))
    return pids


@dataclasses.dataclass
class Run:
    """One (program, path, gate) run and everything checked after it."""

    program: Path
    runner: str
    gate: bool
    outcome: Outcome | None = None
    escaped: list[str] = dataclasses.field(default_factory=list)
    connected: bool = False
    leaked: list[str] = dataclasses.field(default_factory=list)
    leftovers: list[int] = dataclasses.field(default_factory=list)
    ipc: list[str] = dataclasses.field(default_factory=list)
    damaged: list[str] = dataclasses.field(default_factory=list)
    log_bytes: int = 0


def execute(run: Run, spec: TaskSpec, base: Path, secret: str) -> Run:
    """Lay out a run folder, run the candidate through its path, then check the folder and the machine."""
    run_dir = base / f"{run.runner}-{'on' if run.gate else 'off'}-{run.program.stem}"
    cand = run_dir / "iter_0" / "cand_0"
    (run_dir / "iter_0" / "cand_1").mkdir(parents=True)
    (run_dir / "iter_0" / "cand_1" / "canary.txt").write_text("canary")
    (run_dir / "run.json").write_text(json.dumps({"task": spec.name}))
    cand.mkdir()
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        listener.setblocking(False)
        source = run.program.read_text().replace("PORT = 0", f"PORT = {listener.getsockname()[1]}")
        (cand / "reward.py").write_text(source)
        (cand / "candidate.json").write_text(json.dumps({"program": run.program.stem}))
        outside, spec_files = _tree(run_dir, skip=cand), _tree(spec.source.parent)
        run.outcome = RUNNERS[run.runner](spec, cand, run.gate)
        run.escaped = _escapes()
        try:
            listener.accept()[0].close()
            run.connected = True
        except BlockingIOError:
            pass
    run.leftovers = _leftovers(run.outcome.worker_dir, cand)
    run.ipc = _sysv_objects()
    run.leaked = [str(p) for p in cand.rglob("*") if p.is_file() and not p.is_symlink()
                  and secret.encode() in p.read_bytes()]
    if secret in run.outcome.reason:
        run.leaked.append("the recorded reason")
    job_path = run.outcome.worker_dir / JOB_FILE
    intact = {"files outside the candidate folder": _tree(run_dir, skip=cand) == outside,
              "the spec folder": _tree(spec.source.parent) == spec_files,
              "reward.py": (cand / "reward.py").read_text() == source,
              "candidate.json": json.loads((cand / "candidate.json").read_text()) == {"program": run.program.stem},
              "job.json": not job_path.exists() or _job_matches(job_path, cand / "reward.py", run.gate)}
    run.damaged = [name for name, ok in intact.items() if not ok]
    log = run.outcome.worker_dir / "worker.log"
    run.log_bytes = log.stat().st_size if log.exists() else 0
    return run


def _parent_limits() -> tuple:
    """This (the parent) process's resource limits, niceness and CPU affinity."""
    import resource

    kinds = sorted(getattr(resource, name) for name in dir(resource) if name.startswith("RLIMIT_"))
    return tuple(resource.getrlimit(k) for k in kinds), os.getpriority(os.PRIO_PROCESS, 0), os.sched_getaffinity(0)


def _job_matches(job_path: Path, reward: Path, gate: bool) -> bool:
    job = WorkerJob.model_validate_json(job_path.read_text())
    return job.reward_path == reward.resolve() and job.ast_gate == gate and job.sandbox.enabled


def _selected(items: list[pytest.Item]) -> list[tuple[str, str, str]]:
    return [(item.callspec.params["program"].stem, item.callspec.params["runner"], item.callspec.params["gate"])
            for item in items if item.originalname == "test_hostile_run_contained"]


@pytest.fixture(scope="module")
def runs(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory):
    """Every selected run, done once up front (in parallel; training runs, then those that must be killed at a
    time limit, first), with a planted
    key in this process's environment."""
    secret = f"sk-planted-{uuid.uuid4().hex}"
    base = tmp_path_factory.mktemp("hostile")
    (base / "spec").mkdir()
    spec = read_task(make_tiny_spec(base / "spec", TASK, timesteps=256, eval_freq=100_000, eval_episodes=1,
                                    hyperparams={"n_steps": 128, "batch_size": 64, "n_epochs": 1}))
    by_stem = {p.stem: p for p in CORPUS}
    todo = [Run(by_stem[stem], runner, GATES[gate]) for stem, runner, gate in _selected(request.session.items)]
    todo.sort(key=lambda run: (run.runner != "train", _expected(run.program, run.runner, run.gate) != "killed"))
    for path in _escapes():
        os.remove(path)
    _remove_sysv_objects()
    limits = _parent_limits()
    with pytest.MonkeyPatch.context() as mp, ThreadPoolExecutor(PARALLEL) as pool:
        mp.setenv("OPENAI_API_KEY", secret)
        done = list(pool.map(lambda run: execute(run, spec, base, secret), todo))
    assert _parent_limits() == limits, "a worker changed the parent's limits, priority or CPU affinity"
    for path in _escapes():
        os.remove(path)
    _remove_sysv_objects()
    return {(run.program.stem, run.runner, "gate-on" if run.gate else "gate-off"): run for run in done}


FAST_PATH = ("critic", "gate-off")
"""The fast set runs every program on one path: the critic's smoke worker with the gate off, so the OS layers face
the code alone; but not the programs that only end at the wall-clock limit (10 s each of a busy core: the critic's
timeout has its own fast test in test_critic.py). The other paths, and those, are in the slow set CI also runs."""


def _fast(program: Path, runner: str, gate: str) -> bool:
    return (runner, gate) == FAST_PATH and header(program, runner) != "killed"


CASES = [pytest.param(program, runner, gate, id=f"{program.stem}-{runner}-{gate}",
                      marks=() if _fast(program, runner, gate) else pytest.mark.slow)
         for program in CORPUS for runner in sorted(RUNNERS) for gate in sorted(GATES)]


@pytest.mark.timeout(3600)  # the module fixture runs every selected program up front, inside the first test's time
@pytest.mark.parametrize(("program", "runner", "gate"), CASES)
def test_hostile_run_contained(program: Path, runner: str, gate: str, runs: dict) -> None:
    run = runs[(program.stem, runner, gate)]
    assert not run.escaped, f"files written outside the candidate folder: {run.escaped}"
    assert not run.connected, "a connection reached the listener on 127.0.0.1"
    assert not run.leaked, f"the planted secret was found in {run.leaked}"
    assert not run.leftovers, f"processes of the worker survived: {run.leftovers}"
    assert not run.ipc, f"SysV IPC objects outlived the worker: {run.ipc}"
    assert not run.damaged, f"the run folder was damaged: {run.damaged}"
    assert run.log_bytes <= OUTPUT_CAP + 100
    outcome = run.outcome
    assert outcome.verdict == _expected(program, runner, GATES[gate]), outcome.reason
    assert (outcome.verdict == "accepted") != bool(outcome.reason), "a rejection must record its reason"
