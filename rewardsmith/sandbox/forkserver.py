"""Warm workers: a clean, pre-imported interpreter that forks one fresh worker per job.

A worker's fixed cost is mostly its imports (torch, stable-baselines3, gymnasium, MuJoCo: about 2.5 s of a
short job's 3-4 s start-up, paid twice per candidate, for training and for evaluation). The fork server pays
them once: it is started exactly like a worker (`python -I`, the allow-listed environment with no secret, its
own session, dying with its parent), imports the modules the worker entry point names in `WARM_IMPORTS`, and
then only forks. It never reads a job, a reward or any file a candidate wrote, so each forked worker starts
from the same state a cold worker reaches after its imports, and then runs the unchanged worker entry point
(`rewardsmith.workers.main.main`), which locks itself down before any candidate code runs.

Each child is a new session (as a cold worker) that dies with the server, which dies with the parent. The
server never reaps a child on its own: the supervising parent asks it to (`reap`), after it has killed the
child's session, so a pid is never reused while the parent may still signal it (the same rule as for cold
workers). A parent that cannot start the server, or loses it, starts cold workers instead.

Set REWARDSMITH_WARM_WORKERS=0 to always start cold workers.
"""

from __future__ import annotations

import ctypes
import importlib
import json
import os
import select
import shutil
import socket
import stat
import subprocess
import sys
import tempfile
import threading
import weakref
from pathlib import Path
from typing import Any

from rewardsmith.errors import SandboxError
from rewardsmith.sandbox.proc import pid_alive

SERVER_MODULE = "rewardsmith.sandbox.forkserver"
ENV_SWITCH = "REWARDSMITH_WARM_WORKERS"
READY_TIMEOUT_S = 120.0
"""How long the server may take to import everything before the parent gives up on it (cold workers then)."""
FORK_READY_TIMEOUT_S = 10.0
MAX_MESSAGE = 1 << 16
EXIT_CHILD_SETUP = 71
"""Exit code of a forked child that failed before the worker entry point ran."""
_PR_SET_PDEATHSIG = 1
_PR_SET_DUMPABLE = 4
_PR_SET_NAME = 15
HOME_PREFIX = "rewardsmith-forkserver-"
"""A server's home folder in the temp dir: this, its parent's pid, a dash, a random tail."""
NAME_PREFIX = "rs-"
"""A forked worker's process name (`/proc/PID/comm`) is this plus its mode: its command line is the server's."""


def enabled() -> bool:
    """Whether warm workers are wanted (REWARDSMITH_WARM_WORKERS is not 0/false/no/off)."""
    return os.environ.get(ENV_SWITCH, "1").strip().lower() not in ("0", "false", "no", "off")


class ForkServer:
    """The parent's handle on one fork server: `spawn` a worker, `reap` it; safe to use from many threads."""

    def __init__(self, command: list[str], env: dict[str, str]) -> None:
        self._lock = threading.Lock()
        self._sock, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        remove_stale_homes(Path(tempfile.gettempdir()))
        self._home = tempfile.mkdtemp(prefix=f"{HOME_PREFIX}{os.getpid()}-")
        # removed by close() or, for the process-wide server that is never closed, when this process exits
        self._remove_home = weakref.finalize(self, shutil.rmtree, self._home, ignore_errors=True)
        started = threading.Event()
        failure: list[BaseException] = []

        def keep() -> None:
            # PR_SET_PDEATHSIG follows the thread that started the process: this one lives as long as the parent
            try:
                self._proc = subprocess.Popen(
                    [*command, str(theirs.fileno())],
                    cwd=self._home,
                    env={**env, "HOME": self._home},
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                    pass_fds=(theirs.fileno(),),
                    start_new_session=True,
                )
            except OSError as exc:
                failure.append(exc)
            finally:
                started.set()
            threading.Event().wait()

        threading.Thread(target=keep, name="rewardsmith-forkserver", daemon=True).start()
        started.wait()
        theirs.close()
        if failure:
            raise SandboxError(f"could not start the fork server: {failure[0]}")
        ready = self._receive(READY_TIMEOUT_S)
        if "error" in ready:
            self.close()
            raise SandboxError(f"the fork server could not start: {ready['error']}")
        self.pid: int = self._proc.pid

    def spawn(self, argv: list[str], cwd: Path, env: dict[str, str], output_fd: int) -> int:
        """Fork a worker that runs `rewardsmith.workers.main.main(argv)` in `cwd` with exactly `env`, its
        stdout and stderr on `output_fd`, in a new session; returns its pid once that session exists."""
        request = {"op": "spawn", "argv": argv, "cwd": str(cwd), "env": env}
        with self._lock:
            socket.send_fds(self._sock, [json.dumps(request).encode()], [output_fd])
            reply = self._receive(FORK_READY_TIMEOUT_S + 5)
        if "pid" not in reply:
            raise SandboxError(f"the fork server could not start a worker: {reply.get('error', reply)}")
        return int(reply["pid"])

    def reap(self, pid: int) -> int:
        """Wait for a spawned worker that has exited or was killed; its exit code (negative: the signal)."""
        with self._lock:
            self._sock.send(json.dumps({"op": "reap", "pid": pid}).encode())
            reply = self._receive(None)
        if "returncode" not in reply:
            raise SandboxError(f"the fork server could not reap worker {pid}: {reply.get('error', reply)}")
        return int(reply["returncode"])

    def alive(self) -> bool:
        """Whether the server process is still running."""
        return self._proc.poll() is None

    def close(self) -> None:
        """Stop the server (its workers die with it)."""
        self._sock.close()
        try:
            self._proc.kill()
            self._proc.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            pass
        self._remove_home()

    def _receive(self, timeout_s: float | None) -> dict[str, Any]:
        ready, _, _ = select.select([self._sock], [], [], timeout_s)
        if not ready:
            raise SandboxError(f"the fork server did not answer within {timeout_s:g} s")
        data = self._sock.recv(MAX_MESSAGE)
        if not data:
            raise SandboxError("the fork server exited")
        return json.loads(data)


class WarmProcess:
    """A worker forked by the server, with the part of `subprocess.Popen`'s interface `run_worker` uses."""

    def __init__(self, server: ForkServer, pid: int, stdout) -> None:
        self.server, self.pid, self.stdout = server, pid, stdout
        self.returncode: int | None = None

    def wait(self) -> int:
        """Have the server reap the worker (call after its session was killed); its exit code."""
        if self.returncode is None:
            try:
                self.returncode = self.server.reap(self.pid)
            except SandboxError:
                self.returncode = -9  # the server died, and with it the worker
        return self.returncode


def remove_stale_homes(temp: Path) -> list[Path]:
    """Remove this user's server home folders in `temp` whose parent process is gone (a parent killed by
    SIGKILL runs no clean-up, so its server's home stays); the folders removed."""
    removed = []
    for home in temp.glob(HOME_PREFIX + "*"):
        pid = home.name[len(HOME_PREFIX) :].split("-", 1)[0]
        try:
            info = home.lstat()  # a symlink planted under the name is left alone, never followed
        except OSError:
            continue
        if not pid.isdigit() or not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() or pid_alive(int(pid)):
            continue
        shutil.rmtree(home, ignore_errors=True)
        removed.append(home)
    return removed


_shared: ForkServer | None = None
_shared_failed = ""
_shared_lock = threading.Lock()


def shared(command: list[str], env: dict[str, str]) -> ForkServer | None:
    """This process's fork server, started on first use; None when warm workers are off or it cannot run
    (why: `_shared_failed`). A server that died is replaced once; a second failure turns it off."""
    global _shared, _shared_failed
    if not enabled() or not hasattr(os, "pidfd_open") or not hasattr(socket, "send_fds"):
        return None
    with _shared_lock:
        if _shared is not None and _shared.alive():
            return _shared
        if _shared_failed:
            return None
        if _shared is not None:  # it died: one more try, then cold workers for the rest of the run
            _shared.close()
            _shared_failed = "the fork server died once already"
        try:
            _shared = ForkServer(command, env)
        except (SandboxError, OSError) as exc:
            _shared, _shared_failed = None, str(exc)
        return _shared


# ---- the server side (runs in its own clean interpreter) ----


def serve(fd: int) -> None:
    """The server's loop: import what workers need, say ready, then fork and reap on request until the
    parent closes the socket."""
    sock = socket.socket(fileno=fd)
    try:
        worker_main = _preload()
    except BaseException as exc:  # noqa: BLE001 - any import failure is reported; the parent goes cold
        sock.send(json.dumps({"error": f"{type(exc).__name__}: {exc}"}).encode())
        return
    ctypes.CDLL(None).prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)
    sock.send(json.dumps({"ready": os.getpid()}).encode())
    while True:
        message, fds, _, _ = socket.recv_fds(sock, MAX_MESSAGE, 1)
        if not message:
            return
        request = json.loads(message)
        try:
            if request["op"] == "spawn":
                reply: dict[str, Any] = {"pid": _fork_worker(request, fds[0], sock, worker_main)}
            else:
                _, status = os.waitpid(int(request["pid"]), 0)
                reply = {"returncode": os.waitstatus_to_exitcode(status)}
        except (OSError, KeyError, IndexError, ValueError) as exc:
            reply = {"error": f"{type(exc).__name__}: {exc}"}
        finally:
            for extra in fds:
                os.close(extra)
        sock.send(json.dumps(reply).encode())


def _preload():
    """Import the worker entry point and everything it names in WARM_IMPORTS; refuse to serve if that left
    more than one thread (a fork copies only the calling thread, so locks held by others would stay held)."""
    worker_main = importlib.import_module("rewardsmith.workers.main")
    for name in getattr(worker_main, "WARM_IMPORTS", ()):
        importlib.import_module(name)
    threads = len(os.listdir("/proc/self/task"))
    if threads != 1:
        raise RuntimeError(f"the preloaded modules started {threads - 1} threads; forking would be unsafe")
    with open("/proc/self/maps", encoding="ascii", errors="replace") as maps:
        shared_writable = [line.split()[-1] for line in maps if line.split()[1][1::2] == "ws"]
    if shared_writable:  # every fork would share these pages: one worker could write into the next one's memory
        raise RuntimeError(f"the preloaded modules mapped shared writable memory: {shared_writable[:3]}")
    return worker_main


def _fork_worker(request: dict[str, Any], output_fd: int, sock: socket.socket, worker_main) -> int:
    argv, cwd, env = list(request["argv"]), str(request["cwd"]), dict(request["env"])
    server = os.getpid()
    ready_r, ready_w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the worker
        code = EXIT_CHILD_SETUP
        try:
            sock.close()
            os.close(ready_r)
            os.setsid()
            libc = ctypes.CDLL(None)
            libc.prctl(_PR_SET_PDEATHSIG, 9, 0, 0, 0)
            if os.getppid() != server:
                os._exit(70)
            libc.prctl(_PR_SET_NAME, f"{NAME_PREFIX}{argv[0]}".encode()[:15], 0, 0, 0)  # `ps -o comm` tells them apart
            libc.prctl(_PR_SET_DUMPABLE, 1, 0, 0, 0)  # as a freshly started worker: its parent may read its /proc
            os.dup2(output_fd, 1)
            os.dup2(output_fd, 2)
            null = os.open(os.devnull, os.O_RDONLY)
            os.dup2(null, 0)
            os.write(ready_w, b"1")
            os.closerange(3, 1 << 16)  # the socket, the pipe ends: nothing but 0, 1, 2 stays open
            os.chdir(cwd)
            os.environ.clear()
            os.environ.update(env)
            sys.argv = [worker_main.__name__, *argv]
            _reseed()
            code = worker_main.main(argv)
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)  # never return into the server's loop; skip untrusted atexit hooks and finalizers
    os.close(ready_w)
    try:
        ready, _, _ = select.select([ready_r], [], [], FORK_READY_TIMEOUT_S)
        started = bool(ready) and os.read(ready_r, 1) == b"1"
    finally:
        os.close(ready_r)
    if not started:
        os.kill(pid, 9)
        os.waitpid(pid, 0)
        raise OSError(f"forked worker {pid} did not start its session")
    return pid


def _reseed() -> None:
    """Fresh entropy for numpy's global generator, as a cold worker has (every fork would share the server's)."""
    numpy = sys.modules.get("numpy")
    if numpy is not None:
        numpy.random.seed(None)


if __name__ == "__main__":
    serve(int(sys.argv[1]))
