"""The analyzer, from hand-made candidate folders: every field, the hacking rule, corrupt lines, feedback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rewardsmith.llm import get_model
from rewardsmith.stages.analyzer import ANALYSIS_FILE, analyze
from rewardsmith.task import TaskSpec

SPEC = TaskSpec(name="hop", env="Hopper-v5", description="Hop forward as fast as possible without falling.",
                fitness={"scorer": "scorers:ForwardProgress"})


def state_stats(z: float, x: float, knee: float) -> dict:
    return {"torso.x": {"mean": x / 2, "min": 0.0, "max": x, "last": x},
            "torso.y": {"mean": 0.0, "min": 0.0, "max": 0.0, "last": 0.0},
            "torso.z": {"mean": z, "min": z - 0.1, "max": z + 0.1, "last": z},
            "knee.qpos": {"mean": knee, "min": knee - 0.2, "max": knee + 0.2, "last": knee}}


def write_candidate(folder: Path, *, fitness: list[float], returns: list[float], episodes: list[tuple],
                    speed: list[float] | None = None, corrupt: bool = False) -> Path:
    """A candidate folder as the train worker writes it. episodes: (fitness, return, length, termination, z)."""
    folder.mkdir(parents=True, exist_ok=True)
    lines = []
    speed = speed or [0.1 * i for i in range(len(fitness) * 2)]
    for i, value in enumerate(speed):
        lines.append({"kind": "train", "timesteps": 500 * (i + 1), "fitness": 0.0, "return": 1.0,
                      "components": {"speed": value, "alive": 1.0}, "episodes": 3})
    for i, (f, r) in enumerate(zip(fitness, returns)):
        lines.append({"kind": "eval", "timesteps": 1000 * (i + 1), "fitness": f, "return": r, "success_rate": 0.0,
                      "ep_len": 100.0, "components": {}, "episodes": 2})
    text = "".join(json.dumps(line) + "\n" for line in lines)
    if corrupt:
        text = text.replace("\n", '\n{"kind": "train", "timest\n', 1)
    (folder / "metrics.jsonl").write_text(text)
    (folder / "eval_episodes.jsonl").write_text("".join(
        json.dumps({"episode": i, "fitness": f, "return": r, "length": n, "termination": t, "success": False,
                    "components": {}, "state_stats": state_stats(z, 2.0 * f, 0.3 * i)}) + "\n"
        for i, (f, r, n, t, z) in enumerate(episodes)))
    (folder / "summary.json").write_text(json.dumps({"status": "ok", "fitness": fitness[-1], "success_rate": 0.0,
                                                     "ep_len": 120.0, "return": returns[-1]}))
    return folder


ALIGNED_EPISODES = [(1.0, 100.0, 1000, "truncated", 1.2), (0.5, 60.0, 400, "terminated", 0.9),
                    (0.2, 30.0, 150, "terminated", 0.7), (0.8, 90.0, 1000, "truncated", 1.1)]


def test_every_field_from_an_aligned_candidate(tmp_path):
    folder = write_candidate(tmp_path / "c", fitness=[0.1, 0.4, 0.9], returns=[10.0, 40.0, 90.0],
                             episodes=ALIGNED_EPISODES)
    a = analyze(SPEC, folder)
    assert json.loads((folder / ANALYSIS_FILE).read_text())["feedback"] == a["feedback"]
    assert a["fitness_curve"] == [(1000, 0.1), (2000, 0.4), (3000, 0.9)]
    speed = a["components"]["speed"]
    assert len(speed["points"]) == 6 and speed["points"][0] == (500, 0.0) and speed["points"][-1][0] == 3000
    assert (speed["min"], speed["max"]) == (0.0, pytest.approx(0.5))
    assert a["termination"] == {"episodes": 4, "terminated": 2, "truncated": 2, "terminated_fraction": 0.5,
                                "mean_length": 637.5}
    best, worst = a["episodes"]["best"], a["episodes"]["worst"]
    assert (best["fitness"], worst["fitness"], worst["termination"]) == (1.0, 0.2, "terminated")
    state = a["episodes"]["state"]
    assert list(state)[:3] == ["torso.x", "torso.y", "torso.z"]
    assert (state["torso.z"]["best"]["mean"], state["torso.z"]["worst"]["mean"]) == (1.2, 0.7)
    assert a["return_fitness_correlation"]["r"] > 0.9 and a["return_fitness_correlation"]["episodes"] == 4
    assert a["reward_hacking"] == {"flag": False, "reason": ""}
    assert {f["code"] for f in a["flags"]} == {"constant-component", "early-termination"}
    assert a["problems"] == [] and a["final"]["fitness"] == 0.9
    for expected in ("fitness (trusted task score) during training: 0.1 @ 1000, 0.4 @ 2000, 0.9 @ 3000",
                     "speed: [0, 0.1, 0.2, 0.3, 0.4, 0.5]", "2 of 4 (50%) ended by termination",
                     "torso.z: mean 1.2 vs 0.7", "r = 0.9", "component alive stayed at 1"):
        assert expected in a["feedback"]
    assert len(a["feedback"].splitlines()) <= 60


def test_return_up_while_fitness_flat_is_flagged_as_hacking(tmp_path):
    folder = write_candidate(tmp_path / "c", fitness=[0.3, 0.31, 0.3], returns=[10.0, 80.0, 200.0],
                             episodes=[(0.3, 50.0, 1000, "truncated", 1.0), (0.2, 80.0, 1000, "truncated", 1.0),
                                       (0.1, 120.0, 1000, "truncated", 1.0)])
    a = analyze(SPEC, folder)
    assert a["reward_hacking"]["flag"]
    reason = a["reward_hacking"]["reason"]
    assert "r = -1.00" in reason and "return rose from 10 to 200 while fitness went from 0.3 to 0.3" in reason
    assert {f["code"] for f in a["flags"]} >= {"reward-hacking", "no-progress"}
    assert "possible reward hacking" in a["feedback"]


def test_return_up_with_fitness_up_over_training_alone_is_not_hacking(tmp_path):
    folder = write_candidate(tmp_path / "c", fitness=[0.1, 0.3, 0.6], returns=[10.0, 80.0, 200.0],
                             episodes=ALIGNED_EPISODES[:2])
    a = analyze(SPEC, folder)
    assert a["return_fitness_correlation"]["r"] is None  # fewer than 3 episodes
    assert not a["reward_hacking"]["flag"] and "no-progress" not in {f["code"] for f in a["flags"]}


def test_corrupt_metrics_line_and_missing_files_are_tolerated(tmp_path):
    folder = write_candidate(tmp_path / "c", fitness=[0.1, 0.4], returns=[1.0, 2.0], episodes=ALIGNED_EPISODES,
                             corrupt=True)
    a = analyze(SPEC, folder)
    assert a["fitness_curve"] == [(1000, 0.1), (2000, 0.4)]
    assert len(a["problems"]) == 1 and "metrics.jsonl:2: corrupt line skipped" in a["problems"][0]
    (tmp_path / "empty_cand").mkdir()  # the worker died before writing anything
    empty = analyze(SPEC, tmp_path / "empty_cand")
    assert empty["fitness_curve"] == [] and empty["components"] == {} and empty["episodes"] == {}
    assert [p.split(":")[0] for p in empty["problems"]] == ["metrics.jsonl", "eval_episodes.jsonl", "summary.json"]
    assert "missing data" in empty["feedback"]


def test_feedback_changes_with_the_data(tmp_path):
    one = analyze(SPEC, write_candidate(tmp_path / "a", fitness=[0.1, 0.4, 0.9], returns=[1.0, 2.0, 3.0],
                                        episodes=ALIGNED_EPISODES))["feedback"]
    two = analyze(SPEC, write_candidate(tmp_path / "b", fitness=[0.2, 0.5, 0.7], returns=[1.0, 2.0, 3.0],
                                        episodes=ALIGNED_EPISODES, speed=[3.0, 2.0, 1.0, 0.5]))["feedback"]
    assert one != two
    assert "speed: [3, 2, 1, 0.5]" in two and "0.7 @ 3000" in two


def test_llm_summary_is_appended_with_its_tokens(tmp_path):
    script = tmp_path / "script.jsonl"
    script.write_text(json.dumps({"role": "analyzer", "content": "1. The hopper falls: reward torso height."}) + "\n")
    folder = write_candidate(tmp_path / "c", fitness=[0.1, 0.4], returns=[1.0, 2.0], episodes=ALIGNED_EPISODES)
    a = analyze(SPEC, folder, model=get_model(f"scripted:{script}"), llm_summary=True)
    assert a["llm_summary"] == "1. The hopper falls: reward torso height."
    assert a["feedback"].endswith("analysis of likely causes:\n1. The hopper falls: reward torso height.")
    assert a["llm"]["tokens"] > 0 and json.loads((folder / ANALYSIS_FILE).read_text())["llm"]["tokens"] > 0
