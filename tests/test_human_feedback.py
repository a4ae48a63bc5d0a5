"""`--feedback ask|FILE`: the user's sentence or ranking after an iteration reaches the next prompt, is recorded,
and is replayed (never asked again) on resume."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rewardsmith.errors import FeedbackError
from rewardsmith.run_folder.folder import RunFolder
from rewardsmith.run_folder.records import CandidateRecord
from rewardsmith.stages.human_feedback import Feedback, check_option, collect, file_answer, parse, recorded

DATA = Path(__file__).parent / "data"


def folder_with_candidates(tmp_path: Path) -> RunFolder:
    folder = RunFolder(tmp_path / "run")
    for index, fitness in ((1, 0.31), (2, None)):
        folder.cand_dir(1, index).mkdir(parents=True)
        folder.save_candidate(CandidateRecord(
            id=f"1.{index}", iteration=1, index=index, status="trained" if fitness else "rejected",
            reason="" if fitness else "NameError: tip_heigth", fitness=fitness, fitness_se=0.02 if fitness else None,
            episodes=3, success_rate=0.0 if fitness else None))
    return folder


def test_an_answer_is_free_text_and_a_ranking_of_known_ids():
    assert parse("stay near the centre\nrank: 1.2 > 1.1\n", ["1.1", "1.2"]) == ("stay near the centre", ["1.2", "1.1"])
    assert parse("   \n", ["1.1"]) == ("", [])
    for bad in ("rank: 1.1 > 9.9", "rank: 1.1 > 1.1", "rank: 1.1"):
        with pytest.raises(FeedbackError, match="name at least two different candidates"):
            parse(bad, ["1.1", "1.2"])


def test_a_file_gives_its_lead_in_after_every_iteration_and_each_block_after_its_own(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("keep the cart still\n# after iteration 1\nrank: 1.2 > 1.1\n# after iteration 2\nswing less\n")
    assert file_answer(path, 1) == "keep the cart still\nrank: 1.2 > 1.1"
    assert file_answer(path, 2) == "keep the cart still\nswing less"
    assert file_answer(path, 3) == "keep the cart still"
    with pytest.raises(FeedbackError, match="no such file"):
        check_option(str(tmp_path / "missing.txt"))
    check_option(str(path))
    (tmp_path / "binary.txt").write_bytes(b"\xff\xfe")  # found before the run, not after its first iteration
    with pytest.raises(FeedbackError, match="cannot read the feedback file"):
        check_option(str(tmp_path / "binary.txt"))


def test_ask_needs_a_terminal(monkeypatch):
    monkeypatch.setattr("sys.stdin.isatty", lambda: False)
    with pytest.raises(FeedbackError, match="needs a terminal"):
        check_option("ask")


def test_collect_records_and_a_resume_replays_without_reading_again(tmp_path):
    folder = folder_with_candidates(tmp_path)
    path = tmp_path / "notes.txt"
    path.write_text("# after iteration 1\nthe cart drifts right\nrank: 1.1 > 1.2\n")
    answer = collect(folder, str(path), 1)
    assert (answer.text, answer.ranking) == ("the cart drifts right", ["1.1", "1.2"])
    path.write_text("# after iteration 1\nsomething else\n")  # changed after the answer was recorded
    assert collect(folder, str(path), 1).text == "the cart drifts right"  # a resume replays the record
    assert [e["event"] for e in folder.events()].count("human_feedback") == 1
    assert recorded(folder, before=2) == [Feedback(1, "the cart drifts right", ["1.1", "1.2"], str(path.resolve()))]
    assert recorded(folder, before=1) == []


def test_ask_shows_the_iteration_and_asks_again_after_a_bad_ranking(tmp_path, capsys):
    folder = folder_with_candidates(tmp_path)
    typed = iter(["rank: 1.1 > 7.7", "", "too much swinging", "rank: 1.1 > 1.2", ""])
    answer = collect(folder, "ask", 1, read=lambda prompt: next(typed))
    shown = capsys.readouterr().out
    assert "1.1  search fitness 0.31 ± 0.02 (standard error, 3 episodes)" in shown
    assert "1.2  rejected: NameError: tip_heigth" in shown and "rewardsmith report" in shown
    assert "error: ranking '1.1 > 7.7'" in shown
    assert (answer.text, answer.ranking, answer.source) == ("too much swinging", ["1.1", "1.2"], "terminal")
    empty = collect(folder_with_candidates(tmp_path / "other"), "ask", 1, read=lambda prompt: "")
    assert empty.empty  # an empty answer goes on unchanged, and is recorded so a resume does not ask


def test_the_feedback_reaches_the_designer_prompt():
    from rewardsmith.stages.designer import Best, Designer
    from rewardsmith.task import load_task

    designer = Designer(None, load_task("inverted-double-pendulum-balance"), "ENV")
    best = Best(id="1.1", code="def compute_reward(s, a, n):\n    return 0.0, {}", fitness=0.3, success_rate=0.0,
                feedback="FEEDBACK")
    prompt = designer.prompt(best=best, human=[Feedback(1, "the cart drifts right", ["1.2", "1.1"])])[-1]["content"]
    assert "# What the user said" in prompt and "the cart drifts right" in prompt
    assert "from best to worst by watching them: 1.2 > 1.1" in prompt


@pytest.mark.slow
def test_a_scripted_run_sends_the_file_feedback_to_iteration_2(tiny_spec, tmp_path, monkeypatch):
    from rewardsmith.config import RunConfig
    from rewardsmith.search.loop import run as run_search

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    spec_path = tiny_spec("inverted-double-pendulum-balance", timesteps=2048, eval_episodes=3)
    notes = tmp_path / "notes.txt"
    notes.write_text("# after iteration 1\nthe pole should stay still, not only up\n")
    config = RunConfig(task=str(spec_path), model=f"scripted:{DATA / 'loop_unproductive.jsonl'}", iterations=2,
                       samples=1, repair_rounds=0, iteration_retries=0, workers=1, final_seeds=0, out=tmp_path / "run",
                       feedback=str(notes))
    folder = run_search(config)
    events = [e for e in folder.events() if e["event"] == "human_feedback"]
    assert len(events) == 1 and events[0]["iteration"] == 1 and events[0]["source"] == str(notes.resolve())
    calls = [json.loads(p.read_text()) for p in sorted((folder.path / "llm").glob("*_designer.json"))]
    second = [c for c in calls if c["sample"] >= 2000]
    assert second and all("the pole should stay still, not only up" in c["messages"][-1]["content"] for c in second)
    assert "the pole should stay" not in json.dumps([c for c in calls if c["sample"] < 2000])
