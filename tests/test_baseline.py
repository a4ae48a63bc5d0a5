"""`rewardsmith baseline`: human (env reward) and sparse (success-only) baselines, cached per task, budget, seed."""

from __future__ import annotations

import json

import pytest

from rewardsmith.search.baselines import cache_path, load_cached, normalized_score
from rewardsmith.task import read_task


@pytest.mark.slow
def test_baseline_trains_human_and_sparse_then_caches(cli, tiny_spec, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the cache lives under ./runs/baselines
    spec_path = tiny_spec("inverted-double-pendulum-balance")
    code, out, err = cli("baseline", spec_path, "--timesteps", "512", "--seed", "1")
    assert code == 0, err
    assert "human (env reward)" in out and "sparse (success only)" in out
    spec = read_task(spec_path)
    cached = json.loads(cache_path(spec, 512, 1, tmp_path / "runs" / "baselines").read_text())
    assert cached["human"] is not None and cached["sparse"] is not None
    assert (tmp_path / "runs/baselines" / spec.name / "t512_s1" / "native" / "summary.json").is_file()

    code, out, err = cli("baseline", spec_path, "--timesteps", "512", "--seed", "1")
    assert code == 0 and "(cached)" in out
    baseline = load_cached(spec, 512, root=tmp_path / "runs" / "baselines")
    assert baseline == cached
    expected = (cached["human"] * 2 - cached["sparse"] - cached["sparse"]) / abs(cached["human"] - cached["sparse"]) \
        if cached["human"] != cached["sparse"] else None
    score = normalized_score(spec, cached["human"] * 2 - cached["sparse"], baseline)
    assert score == expected or (score is None and expected is None)


@pytest.mark.slow
def test_novel_task_has_only_a_sparse_baseline(cli, tiny_spec, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = cli("baseline", tiny_spec("halfcheetah-run-backward"), "--timesteps", "256")
    assert code == 0, err
    assert "sparse (success only)" in out and "human (env reward)" not in out
    assert "no human reward" in out
