"""A real, small run folder for the review/report/export tests, built once per session.

Candidates are trained by the real sandboxed worker on a CI-sized
halfcheetah-run spec, then analysed; the loop's own files (candidate.json, attempts.json, events,
LLM call records) are written by hand following `rewardsmith.run_folder.folder`. The critic reports are
its static stage plus a hand-written dynamic warning (no smoke worker, to keep the tests short). The run is left interrupted
in iteration 2: 1.1 trained, 1.2 rejected by the critic, 2.1 trained (parent 1.1), 2.2 designed but
never trained, and the last line of 1.1's metrics.jsonl was cut off by the kill.
"""

from __future__ import annotations

import json
import shutil
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from conftest import make_tiny_spec

from rewardsmith.config import RunConfig
from rewardsmith.files import append_jsonl, write_json_atomic
from rewardsmith.run_folder.folder import RunFolder
from rewardsmith.run_folder.names import HEADER
from rewardsmith.run_folder.records import CandidateRecord
from rewardsmith.search.selection import best_record
from rewardsmith.search.training import train_and_evaluate
from rewardsmith.stages.analyzer import analyze
from rewardsmith.stages.critic import CriticFinding, CriticReport, static_findings
from rewardsmith.task import read_task
from rewardsmith.workers.executor import LocalExecutor

TASK = "halfcheetah-run"
PLANTED_FLAG = {"code": "no-progress", "message": "fitness never rose above its first evaluation (planted by the fixture)"}
SMALL = {"max_episode_steps": 100, "hyperparams": {"n_steps": 256, "batch_size": 64, "n_epochs": 2}, "policy_kwargs": {"net_arch": [32, 32]}}

REWARD_1 = '''"""Run forward fast, without wasting effort (an earlier shipped example, kept here so the diffs stay put)."""

import numpy as np


def compute_reward(state, action, next_state):
    forward_velocity = (next_state.body("torso").pos[0] - state.body("torso").pos[0]) / next_state.dt
    effort = float(np.sum(np.square(action)))
    components = {
        "forward_velocity": float(forward_velocity),
        "effort_penalty": -0.1 * effort,
    }
    return sum(components.values()), components
'''

REWARD_BROKEN = '''import os


def compute_reward(state, action, next_state):
    return float(os.getpid()), {}
'''

REWARD_2 = '''import math

import numpy as np


def compute_reward(state, action, next_state):
    forward_velocity = (next_state.body("torso").pos[0] - state.body("torso").pos[0]) / next_state.dt
    effort = float(np.sum(np.square(action)))
    upright = math.cos(float(next_state.joint("rooty").qpos))
    components = {
        "forward_velocity": 2.0 * float(forward_velocity),
        "upright": 0.5 * upright,
        "effort_penalty": -0.05 * effort,
    }
    return sum(components.values()), components
'''


def _header(cid: str, iteration: int, parent: str | None) -> str:
    return (f"{HEADER} {cid} (iteration {iteration}, parent {parent or 'none'}, model scripted)\n"
            f"{HEADER}: compute_reward(state, action, next_state) -> (float, dict[str, float])\n\n")


def _call(folder: RunFolder, number: int, role: str, sample: int, reply: str) -> None:
    (folder.path / "llm").mkdir(exist_ok=True)
    write_json_atomic(folder.path / "llm" / f"{number:04d}_{role}.json", {
        "number": number, "time": "2025-01-01T12:00:00+00:00", "kind": "scripted", "model": "scripted:review.jsonl",
        "api_base": None, "role": role, "messages": [{"role": "user", "content": f"write a reward ({role})"}],
        "temperature": 1.0, "max_tokens": 2048, "sample": sample, "cache_key": f"k{number}", "response": reply,
        "prompt_tokens": 900 + number, "completion_tokens": 200 + number, "cost_usd": 0.001 * number,
        "latency_s": 0.1, "cached": False, "error": None})


def _train(folder: RunFolder, spec, executor: LocalExecutor, cid: str, parent: str | None, code: str):
    """Train and measure one candidate as the loop does: the training worker, then the evaluation worker."""
    iteration, index = map(int, cid.split("."))
    cand = folder.cand_dir(iteration, index)
    cand.mkdir(parents=True)
    (cand / "reward.py").write_text(_header(cid, iteration, parent) + code)
    result, evaluation = train_and_evaluate(folder.path / "task.toml", cand / "reward.py", cand, timesteps=1024,
                                            seed=iteration, eval_episodes=spec.train.eval_episodes,
                                            executor=executor)
    assert result.ok and evaluation is not None, result.error
    return result, evaluation


def _candidate(folder: RunFolder, spec, cid: str, parent: str | None, code: str, *, trained, tokens: int) -> None:
    iteration, index = map(int, cid.split("."))
    cand = folder.cand_dir(iteration, index)
    cand.mkdir(parents=True, exist_ok=True)
    (cand / "attempt_0.py").write_text(code)
    findings = static_findings(code) + ([CriticFinding("dynamic", "dominant-component", "forward_velocity is 40x "
                                                      "larger than the other components", severity="warning")]
                                        if "upright" in code else [])
    report = CriticReport(accepted=not any(f.severity == "error" for f in findings), findings=findings,
                          stats={"stages": ["static"] if findings and findings[0].stage == "static" else
                                 ["static", "dynamic"]})
    write_json_atomic(cand / "critic.json", report.to_dict())
    write_json_atomic(cand / "attempt_0.critic.json", report.to_dict())
    write_json_atomic(cand / "attempts.json", [{"attempt": 0, "file": "attempt_0.py", "accepted": report.accepted,
                                                "findings": [str(f) for f in report.findings], "tokens": tokens,
                                                "cost_usd": 0.002}])
    folder.event("critic_done", candidate=cid, attempt=0, accepted=report.accepted,
                 findings=[str(f) for f in report.errors])
    record = CandidateRecord(id=cid, iteration=iteration, index=index, parent=parent, tokens=tokens, cost_usd=0.002,
                             status="designed" if report.accepted else "rejected",
                             reason="" if report.accepted else str(report.errors[0]))
    if report.accepted:
        (cand / "reward.py").write_text(_header(cid, iteration, parent) + code)
    folder.save_candidate(record)
    folder.event("candidate_designed", candidate=cid, status=record.status, reason=record.reason, repair_rounds=0,
                 tokens=tokens)
    if not (trained and report.accepted):
        return
    folder.event("training_started", candidate=cid, timesteps=1024)
    result, evaluation = trained
    assert folder.cand(iteration, index).accept_evaluation(evaluation)  # as record_training does
    record = record.model_copy(update={"status": "trained", "fitness": evaluation.fitness_mean,
                                       "fitness_se": evaluation.fitness_se, "episodes": len(evaluation.fitness),
                                       "success_rate": evaluation.success_rate, "wall_s": result.wall_s})
    folder.save_candidate(record)
    folder.event("training_done", candidate=cid, status="trained", fitness=record.fitness,
                 success_rate=record.success_rate, error=None)
    executor = LocalExecutor(1)  # the analyzer's replay worker
    try:
        analysis = analyze(spec, cand, model=None, executor=executor, env_description=None)
    finally:
        executor.shutdown()
    if cid == "2.1":  # a planted flag: whether 1,024 steps make progress depends on the machine, not the test
        analysis["flags"] = [f for f in analysis["flags"] if f["code"] != "no-progress"] + [PLANTED_FLAG]
        folder.cand(iteration, index).save_analysis(analysis)
    folder.event("analysis_done", candidate=cid, flags=[f["code"] for f in analysis["flags"]])


def build_review_run(root: Path) -> Path:
    """Build (once) an interrupted two-iteration run under `root/runs/`; returns the run folder."""
    run_dir = root / "runs" / TASK / "20250101-120000-abc123"
    if (run_dir / ".built").is_file():
        return run_dir
    shutil.rmtree(root, ignore_errors=True)
    (root / "spec").mkdir(parents=True)
    spec = read_task(make_tiny_spec(root / "spec", TASK, **SMALL))
    run_dir.mkdir(parents=True)
    config = RunConfig(task=str(spec.source), model="scripted:review.jsonl", workers=1).resolve(spec)
    folder = RunFolder.create(run_dir, config, spec, "scripted:review.jsonl")
    spec = folder.spec()
    folder.event("run_started", task=TASK, model=config.model, run_dir=str(run_dir), pid=999_999_999)
    folder.event("iteration_started", iteration=1, parent=None)
    executor = LocalExecutor(2)  # the two trained candidates train at once, as the loop's workers do
    try:
        with ThreadPoolExecutor(2) as pool:
            first, second = pool.map(lambda job: _train(folder, spec, executor, *job),
                                     [("1.1", None, REWARD_1), ("2.1", "1.1", REWARD_2)])
    finally:
        executor.shutdown()
    _call(folder, 1, "designer", 0, f"```python\n{REWARD_1}```")
    _call(folder, 2, "designer", 1, f"```python\n{REWARD_BROKEN}```")
    _candidate(folder, spec, "1.1", None, REWARD_1, trained=first, tokens=1103)
    _candidate(folder, spec, "1.2", None, REWARD_BROKEN, trained=None, tokens=1105)
    folder.save_best(folder.candidate(1, 1))
    folder.event("iteration_done", iteration=1, best_candidate="1.1", best_fitness=folder.candidate(1, 1).fitness)
    folder.event("iteration_started", iteration=2, parent="1.1")
    _call(folder, 3, "designer", 0, f"```python\n{REWARD_2}```")
    _call(folder, 4, "designer", 1, f"```python\n{REWARD_1.replace('-0.1', '-0.2')}```")
    _candidate(folder, spec, "2.1", "1.1", REWARD_2, trained=second, tokens=1107)
    folder.save_best(best_record(folder.candidates()))
    _candidate(folder, spec, "2.2", "1.1", REWARD_1.replace("-0.1", "-0.2"), trained=None, tokens=1109)
    with open(folder.cand_dir(1, 1) / "metrics.jsonl", "a") as f:
        f.write('{"kind": "train", "timesteps": 20')  # the kill cut this line short
    append_jsonl(run_dir / "events.jsonl", {"t": round(time.time(), 3), "event": "training_started",
                                            "candidate": "2.2", "timesteps": 1024})
    (run_dir / ".built").write_text(json.dumps({"built": time.time()}))
    return run_dir
