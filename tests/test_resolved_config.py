"""`RunConfig.resolve`: a run works with plain-int budgets, and a run.json that kept None budgets (written before
they were resolved) still resumes, resolved on load from the run's own task copy."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rewardsmith.config import ResolvedConfig, RunConfig
from rewardsmith.errors import LLMError
from rewardsmith.run_folder.folder import RunFolder
from rewardsmith.search.loop import resume, run
from rewardsmith.task import read_task

DATA = Path(__file__).parent / "data"
TASK = "inverted-double-pendulum-balance"
BUDGETS = ("iterations", "samples", "timesteps", "final_timesteps", "final_seeds", "repair_rounds")


def test_resolve_fills_every_budget_with_an_int_and_is_idempotent(tiny_spec):
    spec = read_task(tiny_spec(TASK, timesteps=2048))
    resolved = RunConfig(task=TASK).resolve(spec)
    assert isinstance(resolved, ResolvedConfig)
    assert all(type(getattr(resolved, name)) is int for name in BUDGETS) and resolved.screen is True
    assert (resolved.timesteps, resolved.samples, resolved.final_seeds) == (2048, spec.search.samples, 2)
    assert resolved.resolve(spec) == resolved
    assert RunConfig.model_validate(json.loads(resolved.model_dump_json())).resolve(spec) == resolved  # as in run.json


def test_a_run_json_with_none_budgets_resumes(tiny_spec, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("REWARDSMITH_LLM_ATTEMPTS", "1")
    spec_path = tiny_spec(TASK, timesteps=2048, eval_episodes=3)
    out = tmp_path / "run"
    with pytest.raises(LLMError):  # a provider that is down leaves a resumable run folder
        run(RunConfig(task=str(spec_path), model="openai/x", api_base="http://127.0.0.1:9/v1", workers=1, out=out))
    info = json.loads((out / "run.json").read_text())
    info["config"].update(
        {name: None for name in ("timesteps", "final_timesteps", "repair_rounds", "screen")},
        model=f"scripted:{DATA / 'loop_unproductive.jsonl'}",
        iterations=1,
        samples=1,
        final_seeds=0,
    )
    (out / "run.json").write_text(json.dumps(info))  # as a run.json that kept None budgets

    folder = resume(out)
    assert folder.status() == "finished" and folder.summary()["best_candidate"] == "1.1"
    started = [e for e in folder.events() if e["event"] == "training_started"]
    assert max(e["timesteps"] for e in started) == 2048  # the spec's budget (the last rung), from the run's task copy
    assert json.loads((out / "run.json").read_text())["config"]["timesteps"] is None  # the record is not rewritten
    assert RunFolder(out).config().resolve(folder.spec()).timesteps == 2048
