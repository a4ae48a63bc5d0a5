"""Fitness is measured where no candidate code ever ran: the evaluation worker, its strict weights, the parent's
fresh seeds, resume re-verification and the training worker's per-call budget (issue 10, items 1, 2, 5, 8)."""

from __future__ import annotations

import json
import os
import time
from concurrent.futures import Future
from pathlib import Path

import numpy as np
import pytest
import torch

from rewardsmith.errors import RewardFileError
from rewardsmith.files import remove_tree
from rewardsmith.run_folder.folder import RunFolder
from rewardsmith.search.final import finished_seeds
from rewardsmith.search.training import fresh_seeds, reward_budget, train_and_evaluate
from rewardsmith.task import ENVS_DIR, make_env, read_task
from rewardsmith.workers.backends.sb3 import policy_bytes
from rewardsmith.workers.evaluate import build_policy, load_weights
from rewardsmith.workers.executor import LocalExecutor
from rewardsmith.workers.job import WorkerJob
from rewardsmith.workers.train import LateReward

HOSTILE = Path(__file__).with_name("hostile")
HONEST = ENVS_DIR / "examples" / "inverted_double_pendulum_balance.py"
TASK = "inverted-double-pendulum-balance"


class GateOff:
    """An executor that runs every job with the AST gate bypassed (test-only: proves the OS layers and the
    evaluation worker hold without it)."""

    def __init__(self, workers: int = 1) -> None:
        self.inner = LocalExecutor(workers)
        self.workers = self.inner.workers

    def submit(self, job: WorkerJob, on_progress=None) -> Future:
        return self.inner.submit(job.model_copy(update={"ast_gate": False}), on_progress)

    def shutdown(self) -> None:
        self.inner.shutdown()


@pytest.fixture
def spec_path(tiny_spec):
    return tiny_spec(
        TASK,
        timesteps=512,
        eval_freq=256,
        eval_episodes=2,
        hyperparams={"n_steps": 128, "batch_size": 64, "n_epochs": 1},
    )


def policy_for(spec_path: Path):
    spec = read_task(spec_path)
    env = make_env(spec)
    return build_policy(spec, env.observation_space, env.action_space)


# -- the weights: tensors only, parsed strictly ------------------------------------------------------------


def test_weights_round_trip_and_strict_parse(spec_path, tmp_path):
    source, target = policy_for(spec_path), policy_for(spec_path)
    good = tmp_path / "policy.safetensors"
    good.write_bytes(policy_bytes(source))
    load_weights(target, good)
    for name, tensor in source.state_dict().items():
        assert torch.equal(tensor, target.state_dict()[name]), name

    from safetensors.torch import save

    state = {k: v.clone() for k, v in source.state_dict().items()}
    first = next(iter(state))
    cases = {
        "junk": b"\x80\x04not a safetensors file",
        "extra tensor": save({**state, "evil": torch.zeros(1)}),
        "missing tensor": save({k: v for k, v in state.items() if k != first}),
        "wrong shape": save({**state, first: torch.zeros(3, 3)}),
        "nan": save({**state, first: torch.full_like(state[first], float("nan"))}),
    }
    for label, data in cases.items():
        bad = tmp_path / f"{label}.safetensors"
        bad.write_bytes(data)
        with pytest.raises(RewardFileError):
            load_weights(target, bad)
    link = tmp_path / "link.safetensors"
    link.symlink_to(good)
    fifo = tmp_path / "fifo.safetensors"
    os.mkfifo(fifo)
    for path in (link, fifo, tmp_path / "missing.safetensors"):
        with pytest.raises(RewardFileError, match="missing, not a regular file"):
            load_weights(target, path)  # never follows a link, never blocks on a FIFO
    with pytest.raises(RewardFileError, match="over"):
        load_weights(target, good, max_bytes=100)


def test_evaluation_reports_its_progress(tiny_spec, tmp_path):
    """The evaluation worker's episodes write "steps done, total" to the heartbeat the parent shows as
    "evaluating x% (ETA ...)"; an episode that ends early counts whole."""
    from rewardsmith.reward.wrappers import ApplyReward
    from rewardsmith.task import make_scorer
    from rewardsmith.workers.evaluate import run_episodes

    spec = read_task(tiny_spec("halfcheetah-run", max_episode_steps=150))
    env = ApplyReward(make_env(spec), scorer=make_scorer(spec), source="native")
    policy = build_policy(spec, env.observation_space, env.action_space)
    seen = []

    class Heartbeat(type(tmp_path)):  # records every report the worker writes
        def write_text(self, text, *args, **kwargs):
            seen.append(tuple(map(int, text.split())))
            return super().write_text(text, *args, **kwargs)

    episodes = run_episodes(policy, env, [1, 2], heartbeat=Heartbeat(tmp_path / "heartbeat"))
    assert [e["length"] for e in episodes] == [150, 150]
    assert seen == [(100, 300), (250, 300)]


def test_fresh_seeds_are_distinct_and_unpredictable():
    a, b = fresh_seeds(8), fresh_seeds(8)
    assert len(set(a)) == 8 and a != b and all(0 <= s < 2**31 for s in a)


def test_remove_tree_survives_a_deep_planted_tree(tmp_path):
    root = tmp_path / "eval"
    root.mkdir()
    here = os.getcwd()
    try:  # deeper than PATH_MAX: built one folder at a time
        os.chdir(root)
        for _ in range(3000):
            os.mkdir("d")
            os.chdir("d")
        Path("f").write_text("x")
    finally:
        os.chdir(here)
    (root / "link").symlink_to(tmp_path)
    (tmp_path / "keep").write_text("kept")
    remove_tree(root)
    assert not root.exists() and (tmp_path / "keep").read_text() == "kept"


def test_reward_budget_from_the_critic_stats():
    assert reward_budget({"stats": {"dynamic": {"time_ms": {"median": 0.5}}}}) == pytest.approx(0.005)
    assert reward_budget({"stats": {"dynamic": {"time_ms": {"median": 0.01}}}}) == 0.001  # the floor
    assert reward_budget({"accepted": True, "stats": {"dynamic": {"time_ms": {"median": 2.0}}}}) == 0.02  # critic.json
    assert reward_budget({"dynamic": {"time_ms": {"median": 2.0}}}) is None  # one shape: critic.json as written
    assert reward_budget({}) is None and reward_budget(None) is None


# -- item 8: the per-call budget during training -------------------------------------------------------------


def test_late_reward_stops_a_reward_that_stays_over_budget():
    reward = LateReward(budget_s=0.001, window=16)
    slow = [False]

    def fn(state, action, next_state):
        if slow[0]:
            time.sleep(0.003)
        return 1.0, {}

    reward.fn = fn
    reward.watch = True
    for _ in range(200):  # cheap calls never trip it
        reward(None, None, None)
    slow[0] = True
    started = time.perf_counter()
    with pytest.raises(RewardFileError, match="got too slow"):
        for _ in range(100):
            reward(None, None, None)
    assert reward.calls - 200 == 9  # stopped as soon as over half the window (16) went over
    assert time.perf_counter() - started < 1.0


def test_late_reward_tolerates_rare_spikes():
    reward = LateReward(budget_s=0.001, window=16)
    n = [0]

    def fn(state, action, next_state):
        n[0] += 1
        if n[0] % 4 == 0:
            time.sleep(0.002)
        return 1.0, {}

    reward.fn, reward.watch = fn, True
    for _ in range(64):
        reward(None, None, None)


@pytest.mark.slow
def test_late_slow_reward_is_stopped_early_not_at_the_wall(spec_path, tmp_path):
    executor = LocalExecutor(1)
    try:
        started = time.monotonic()
        result, evaluation = train_and_evaluate(
            spec_path,
            HOSTILE / "late_slow_reward.py",
            tmp_path / "cand",
            timesteps=4096,
            seed=0,
            eval_episodes=1,
            executor=executor,
            reward_budget_s=0.005,
        )
    finally:
        executor.shutdown()
    assert result.status == "rejected" and evaluation is None
    assert "got too slow" in result.error and "stopped early" in result.error
    assert time.monotonic() - started < 120  # the wall limit of this job would be 180 + 4096/40 s


# -- items 1, 2: what the reward does in its own process cannot change the fitness ---------------------------


def forged_lines(cand: Path) -> list[float]:
    return [
        line["fitness"]
        for line in map(json.loads, (cand / "metrics.jsonl").read_text().splitlines())
        if line.get("fitness") is not None
    ]


@pytest.mark.slow
@pytest.mark.parametrize("program,forged", [("scorer_monkeypatch", 1e6), ("writer_hook", 9e5)])
def test_gate_off_forgers_cannot_change_the_fitness(spec_path, tmp_path, program, forged):
    executor = GateOff()
    try:
        result, evaluation = train_and_evaluate(
            spec_path,
            HOSTILE / f"{program}.py",
            tmp_path / "cand",
            timesteps=512,
            seed=0,
            eval_episodes=3,
            executor=executor,
        )
    finally:
        executor.shutdown()
    assert result.ok and evaluation is not None, result.error
    assert forged in forged_lines(tmp_path / "cand"), "the attack should have fooled its own training worker"
    assert evaluation.fitness_mean is not None and abs(evaluation.fitness_mean) < 10
    assert not all(evaluation.success) and len(evaluation.seeds) == 3
    written = json.loads((tmp_path / "cand" / "eval" / "evaluation.json").read_text())
    assert written["fitness_mean"] == evaluation.fitness_mean


# -- item 5: resume re-verifies --------------------------------------------------------------------------


def test_final_seeds_count_only_through_parent_events(tmp_path):
    folder = RunFolder(tmp_path)
    seed_dir = tmp_path / "final" / "seed_0"
    (seed_dir / "eval").mkdir(parents=True)
    (seed_dir / "summary.json").write_text(json.dumps({"status": "ok", "fitness": 1e9}))
    (seed_dir / "eval" / "evaluation.json").write_text(json.dumps({"fitness": [1e9], "fitness_mean": 1e9}))
    assert finished_seeds(folder, "1.1") == {}  # planted files are never read back
    folder.event("final_seed_done", candidate="1.1", seed=0, status="rejected", fitness=None, error="killed")
    folder.event("final_seed_done", candidate="1.2", seed=1, status="ok", fitness=3.0)
    assert finished_seeds(folder, "1.1") == {}
    folder.event(
        "final_seed_done",
        candidate="1.1",
        seed=0,
        status="ok",
        fitness=0.5,
        fitness_se=0.1,
        success_rate=0.0,
        episodes=3,
        error=None,
        wall_s=1.0,
    )
    assert finished_seeds(folder, "1.1")[0]["fitness"] == 0.5


@pytest.mark.slow
def test_resume_plant_is_rejected_and_never_read_back(spec_path, tmp_path):
    """A worker that plants a finished-looking summary and evaluation and hangs is rejected; training the same
    folder again (as a resume does) measures afresh: the planted 1e9 is never read."""
    cand = tmp_path / "cand"
    executor = GateOff()
    try:
        result, evaluation = train_and_evaluate(
            spec_path,
            HOSTILE / "resume_plant.py",
            cand,
            timesteps=256,
            seed=0,
            eval_episodes=2,
            executor=executor,
            options={"timeout_s": 40, "stall_timeout_s": 40},
        )
        assert result.status == "rejected" and evaluation is None
        (cand / "eval").mkdir(exist_ok=True)  # what the program plants once loaded (it may be killed sooner)
        (cand / "summary.json").write_text(json.dumps({"status": "ok", "fitness": 1e9}))
        (cand / "eval" / "evaluation.json").write_text(json.dumps({"fitness": [1e9], "fitness_mean": 1e9}))
        result, evaluation = train_and_evaluate(
            spec_path,
            HONEST,
            cand,
            timesteps=256,
            seed=0,
            eval_episodes=2,
            executor=executor,
        )
    finally:
        executor.shutdown()
    assert result.ok and evaluation is not None
    assert evaluation.fitness_mean is not None and evaluation.fitness_mean < 10
    assert np.isfinite(evaluation.fitness).all()


# -- a scripted run: the honest candidate wins, whatever the forger does in its own process --------------------


def script(tmp_path: Path, forger: str) -> Path:
    """A scripted designer with two replies: the shipped honest reward, then a forger from tests/hostile/."""
    honest = HONEST.read_text().strip()
    forged = "\n".join(
        line for line in (HOSTILE / f"{forger}.py").read_text().splitlines() if not line.startswith("# ")
    ).strip()
    path = tmp_path / "forger_run.jsonl"
    path.write_text(
        "".join(
            json.dumps({"role": "designer", "content": f"```python\n{code}\n```\n"}) + "\n" for code in (honest, forged)
        )
    )
    return path


STEPS = 8192
"""Enough for the honest reward (alive bonus, tip height) to keep the pole up several times longer than a random
policy, while the forger's constant -1 teaches it to fall at once: the trusted fitness separates them."""


def parent_numbers(run: Path) -> list[float]:
    """Every fitness-like number in the files the parent writes: the events, the run summary and each candidate's
    record (not a worker's own reports)."""
    found: list[float] = []

    def walk(value, key=""):
        if isinstance(value, dict):
            for k, v in value.items():
                walk(v, k)
        elif isinstance(value, list):
            for v in value:
                walk(v, key)
        elif isinstance(value, (int, float)) and not isinstance(value, bool) and "fitness" in key:
            found.append(float(value))

    for line in (run / "events.jsonl").read_text().splitlines():
        walk(json.loads(line))
    for path in [run / "summary.json", *run.glob("*/*/candidate.json")]:
        walk(json.loads(path.read_text()))
    return found


@pytest.mark.slow
@pytest.mark.parametrize(
    "gate,forger", [("on", "scorer_monkeypatch"), ("off", "scorer_monkeypatch"), ("off", "writer_hook")]
)
def test_scripted_run_selects_the_honest_candidate(tiny_spec, tmp_path, monkeypatch, gate, forger):
    """Gate on, the forger is rejected. Gate off, it trains and fools its own worker's reports (9e5, 1e6), yet
    every fitness the parent records, selects by and reports comes from the evaluation worker, and there the
    honest reward's policy is the better one: the honest candidate wins on both gate settings."""
    from rewardsmith.config import RunConfig
    from rewardsmith.search.loop import run as run_search
    from rewardsmith.search.selection import best_record

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    spec = tiny_spec(TASK, timesteps=STEPS, eval_episodes=3)
    if gate == "off":  # the critic's static stage and every worker's gate bypassed: the OS layers alone
        monkeypatch.setattr("rewardsmith.stages.critic.static_findings", lambda source, **options: [])
    config = RunConfig(
        task=str(spec),
        model=f"scripted:{script(tmp_path, forger)}",
        iterations=1,
        samples=2,
        timesteps=STEPS,
        final_timesteps=STEPS,
        final_seeds=1,
        repair_rounds=0,
        workers=2,
        semantic=False,
        rungs=[1.0],
        out=tmp_path / "run",
    )
    executor = GateOff(2) if gate == "off" else LocalExecutor(2)
    try:
        folder = run_search(config, executor=executor)
    finally:
        executor.shutdown()
    records = {r.id: r for r in folder.candidates()}
    # the two design requests run in parallel, so either candidate may hold the honest reply; a rejected one has
    # no reward.py
    rewards = {r.id: folder.cand_dir(r.iteration, r.index) / "reward.py" for r in records.values()}
    honest = next(r for r in records.values() if rewards[r.id].is_file() and "tip_height" in rewards[r.id].read_text())
    forging = next(r for r in records.values() if r.id != honest.id)
    summary = folder.summary()
    assert honest.status == "trained" and best_record(list(records.values())) == honest
    assert summary["best_candidate"] == honest.id
    assert summary["final"]["candidate"] == honest.id and summary["final"]["fitness_mean"] < 10
    numbers = parent_numbers(tmp_path / "run")
    assert numbers and max(abs(n) for n in numbers) < 10, "a forged number reached the parent's records"
    if gate == "on":
        assert forging.status == "rejected" and "forbidden-import" in forging.reason
    else:
        cand = folder.cand_dir(forging.iteration, forging.index)
        assert forging.status == "trained" and forging.fitness is not None and forging.fitness < honest.fitness
        assert max(forged_lines(cand)) >= 9e5, "the forger should have fooled its own training worker"
