"""Shared fixtures: tiny copies of shipped task specs, so training tests fit in CI."""

from __future__ import annotations

import os
import shutil
import tempfile
import tomllib
from pathlib import Path

import pytest

from rewardsmith.task import ENVS_DIR

# Workers cannot drop uid 0 where the tests run as root with Python under a private home (CI: /root/.pyenv,
# mode 700); the default sandbox minimum then refuses to run. The tests opt in explicitly, and say so.
UID0_OPT_IN = os.geteuid() == 0 and os.environ.setdefault("REWARDSMITH_ALLOW_UID0", "1") == "1"
# Tests that train a bare SB3 model without a logger of their own would each leave an empty /tmp/SB3-<time> folder.
os.environ.setdefault("SB3_LOGDIR", os.path.join(tempfile.gettempdir(), "rewardsmith-tests-sb3"))


def pytest_report_header() -> str:
    if UID0_OPT_IN:
        return ("WARNING: REWARDSMITH_ALLOW_UID0=1 (tests run as root): runs accept sandboxed workers that keep uid 0 "
                "where the uid drop is unavailable")
    return "sandbox: no uid-0 opt-in"

TINY_TRAIN = {"timesteps": 1024, "final_timesteps": 1024, "eval_freq": 512, "eval_episodes": 2,
              "hyperparams": {"n_steps": 256, "batch_size": 64, "n_epochs": 2}, "policy_kwargs": {"net_arch": [32, 32]}}


def _toml_value(value) -> str:
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {_toml_value(v)}" for k, v in value.items()) + " }"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"""' + value + '"""' if "\n" in value else f'"{value}"'
    return repr(value)


def write_toml(path: Path, data: dict) -> Path:
    """Write a (nested) dict as TOML: top-level scalars first, then one table per dict."""
    lines = [f"{k} = {_toml_value(v)}" for k, v in data.items() if not isinstance(v, dict)]
    for key, table in data.items():
        if isinstance(table, dict):
            lines.append(f"\n[{key}]")
            lines += [f"{k} = {_toml_value(v)}" for k, v in table.items()]
    path.write_text("\n".join(lines) + "\n")
    return path


def make_tiny_spec(folder: Path, name: str, **train) -> Path:
    """Copy shipped spec `name` (and its scorers) into `folder` with a CI-sized training budget."""
    data = tomllib.loads((ENVS_DIR / f"{name}.toml").read_text())
    data["train"] = {**{k: v for k, v in data.get("train", {}).items() if k == "algo"}, **TINY_TRAIN, **train}
    data["search"] = {"iterations": 2, "samples": 2, "repair_rounds": 1, "final_seeds": 2}
    for module in ENVS_DIR.glob("*.py"):
        shutil.copy(module, folder / module.name)
    return write_toml(folder / f"{name}.toml", data)


def pendulum_sac(cls, steps: int = 250, **kwargs):
    """`cls` (SB3's SAC or `LeanSAC`) on Pendulum-v1 from seed 3 after `steps` env steps (`learning_starts` 100, so
    150 gradient steps at 250), 32x32 networks, foreach Adam (SB3's arithmetic bit for bit), a 2,000-step buffer
    unless `buffer_size` says otherwise."""
    import gymnasium as gym

    policy_kwargs = {"net_arch": [32, 32], "optimizer_kwargs": {"foreach": True}, **kwargs.pop("policy_kwargs", {})}
    kwargs.setdefault("buffer_size", 2000)
    env = gym.make("Pendulum-v1")
    model = cls("MlpPolicy", env, seed=3, verbose=0, learning_starts=100, policy_kwargs=policy_kwargs, **kwargs)
    model.learn(steps)
    return model


@pytest.fixture
def one_torch_thread():
    """One torch thread, as in the training worker (several threads on a busy 2-core machine take 50x longer)."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture
def api_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """A dummy key, fast backoff, and no proxy between litellm and 127.0.0.1."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("REWARDSMITH_LLM_BACKOFF_S", "0.01")
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    for var in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(var, raising=False)


@pytest.fixture
def tiny_spec(tmp_path):
    """Factory: `tiny_spec("halfcheetah-run", timesteps=2048)` -> path of a CI-sized spec copy."""
    return lambda name, **train: make_tiny_spec(tmp_path, name, **train)


@pytest.fixture
def cli(capsys, monkeypatch):
    """Run the `rewardsmith` entry point in-process: `code, out, err = cli("tasks")`."""
    import sys

    from rewardsmith.cli import main

    def run(*args: str) -> tuple[int, str, str]:
        monkeypatch.setattr(sys, "argv", ["rewardsmith", *map(str, args)])
        monkeypatch.setenv("COLUMNS", "200")
        try:
            main()
            code = 0
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
        captured = capsys.readouterr()
        return code, captured.out, captured.err

    return run


def constant_speed_episodes(spec, speeds, fitness, steps: int = 20):
    """Synthetic recorded episodes of the spec's MuJoCo env: the root slides along x at `speeds[i]` m/s for `steps`
    steps (as the evaluation worker records them), labelled with `fitness[i]`."""
    import numpy as np

    from rewardsmith.task import make_env
    from rewardsmith.workers.trajectories import Episode

    env = make_env(spec)
    env.reset(seed=0)
    base, dt = env.unwrapped, env.unwrapped.dt
    episodes = []
    for speed, label in zip(speeds, fitness, strict=True):
        rows = []
        for t in range(steps + 1):
            qpos, qvel = base.init_qpos.copy(), np.zeros(base.model.nv)
            qpos[0], qvel[0] = speed * t * dt, speed
            base.set_state(qpos, qvel)
            rows.append((base._get_obs(), qpos, qvel))
        obs, qpos, qvel = (np.array(c) for c in zip(*rows))
        episodes.append(Episode(obs, qpos, qvel, np.zeros((steps, base.action_space.shape[0])), label))
    env.close()
    return episodes


def children_of(pid: int) -> list[int]:
    """The pids whose parent is `pid` (zombies included), read from /proc."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        if entry.name.isdigit() and int(stat[stat.rindex(")") + 2 :].split()[1]) == pid:
            found.append(int(entry.name))
    return found


ALIVE_SCORER = '''
from rewardsmith.reward.fitness import EpisodeScorer

class Alive(EpisodeScorer):
    def reset(self, state):
        self.steps = 0

    def step(self, state, action, next_state):
        self.steps += 1

    def result(self):
        return float(self.steps), self.steps >= 10

    def sparse_reward(self, state, action, next_state):
        return 1.0
'''
IDP_TINY_TASK = '''
name = "idp-tiny"
env = "InvertedDoublePendulum-v5"
description = "Balance the double pendulum upright for as long as possible."
[fitness]
scorer = "scorer:Alive"
'''


def write_idp_tiny_task(folder: Path) -> Path:
    """A minimal pendulum task (its scorer counts steps alive) written into `folder`; returns its task.toml."""
    (folder / "scorer.py").write_text(ALIVE_SCORER)
    (folder / "task.toml").write_text(IDP_TINY_TASK)
    return folder / "task.toml"
