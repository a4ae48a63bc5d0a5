"""`rewardsmith runs` and `rewardsmith review`: run listing, terminal views at 80 columns, damaged folders."""

from __future__ import annotations

import dataclasses
import json
import os
import re
import shutil
from pathlib import Path

import pytest
from review_fixture import build_review_run
from rich.console import Console

from rewardsmith.errors import RunFolderError
from rewardsmith.run_folder.candidate import CandidateFolder
from rewardsmith.run_folder.index import list_runs
from rewardsmith.views.run_view import read_run
from rewardsmith.views.tables import RunsTable, candidate_view, diff_view, review_view


@pytest.fixture(scope="session")
def review_run(tmp_path_factory) -> Path:
    return build_review_run(tmp_path_factory.getbasetemp() / "review_run")


def render(renderable, width: int = 80) -> str:
    console = Console(width=width, record=True, color_system=None)
    console.print(renderable)
    return console.export_text()


def test_reader_tolerates_an_interrupted_run(review_run):
    view = read_run(review_run)
    assert view.status == "interrupted"
    assert [(c.id, c.status) for c in view.candidates] == [("1.1", "trained"), ("1.2", "rejected"),
                                                           ("2.1", "trained"), ("2.2", "designed")]
    assert view.candidate("1.2").verdict == "rejected" and view.candidate("2.1").parent == "1.1"
    trained = (view.candidate("1.1").record, view.candidate("2.1").record)  # the loop's rule: the lower bound
    assert view.best.id == max(trained, key=lambda r: r.fitness - (r.fitness_se or 0.0)).id
    evals = view.candidate("1.1").evals  # 1,024 steps: an eval every 256 steps (the trusted one is in eval/)
    assert [e.timesteps for e in evals] == [256, 512, 768, 1024]
    assert view.candidate("1.1").evaluation.fitness_mean == view.candidate("1.1").fitness
    assert view.candidate("2.1").components and view.candidate("2.1").analysis.feedback
    assert any(re.search(r"metrics\.jsonl:\d+: corrupt line skipped", w) for w in view.warnings)
    assert view.tokens == sum(900 + n + 200 + n for n in range(1, 5))


def test_review_at_80_columns_shows_every_candidate_and_the_best_code(review_run):
    view = read_run(review_run)
    text = render(review_view(view))
    assert max(len(line) for line in text.splitlines()) <= 80
    for cid in ("1.1", "1.2", "2.1", "2.2"):
        assert f"\n {cid}" in text
    assert "interrupted" in text and "forbidden-import" in text and "accepted" in text and "rejected" in text
    assert f"best reward: {view.best.id}" in text and "def compute_reward" in text
    assert text.rstrip().endswith("delimiter)") and "warning(s) while reading the run" in text
    wide = render(review_view(view), width=140)
    assert "flags / reason" in wide and "flags / reason" not in text


def test_candidate_view_shows_findings_and_analysis(review_run):
    view = read_run(review_run)
    text = render(candidate_view(view, "2.1"))
    assert "dominant-component" in text and "warning" in text
    assert "analyzer" in text and "final evaluation (trusted task score): fitness" in text
    assert "candidate 1.2" in render(candidate_view(view, "1.2")) and "analysis: none (not trained)" in render(
        candidate_view(view, "1.2"))
    with pytest.raises(RunFolderError, match="no candidate '9.9'.*1.1, 1.2, 2.1, 2.2"):
        candidate_view(view, "9.9")


def test_diff_between_candidates_and_best_against_parent(review_run):
    view = read_run(review_run)
    text = render(diff_view(view, "1.1", "2.1"))
    assert "+import math" in text and '+        "upright": 0.5 * upright,' in text
    assert '-        "effort_penalty": -0.1 * effort,' in text and "rewardsmith candidate" not in text
    best = view.best
    if best.parent:
        assert f"{best.parent} (fitness" in render(diff_view(view, None, None))
    # a first-iteration candidate has no parent: it is compared with the best earlier candidate
    assert render(diff_view(view, None, "1.2")).startswith("╭─ 1.1 (fitness")
    assert "→ 1.1 (fitness" in render(diff_view(view, None, "1.1"))  # the first: against the best other one


def test_runs_lists_statuses_and_skips_unknown_folders(review_run, tmp_path):
    root = tmp_path / "runs"
    shutil.copytree(review_run, root / "halfcheetah-run" / "interrupted-run")
    finished = shutil.copytree(review_run, root / "halfcheetah-run" / "finished-run")
    with open(finished / "events.jsonl", "a") as f:
        f.write(json.dumps({"t": 1, "event": "run_finished", "best_candidate": "2.1"}) + "\n")
    running = shutil.copytree(review_run, root / "halfcheetah-run" / "running-run")
    (running / "run.lock").write_text(str(os.getpid()))
    batch = root / "locomotion-batch"
    shutil.copytree(review_run, batch / "halfcheetah-run" / "batch-run")
    (batch / "batch.json").write_text(json.dumps({"name": "locomotion"}))
    (root / "junk" / "deeper").mkdir(parents=True)
    (root / "halfcheetah-run" / "half-written").mkdir()
    (root / "halfcheetah-run" / "half-written" / "run.json").write_text("{not json")
    rows = {r.name.split("/")[-1]: r for r in list_runs(root)}
    assert rows["interrupted-run"].status == "interrupted" and rows["finished-run"].status == "finished"
    assert rows["running-run"].status == "running" and rows["batch-run"].batch == "locomotion-batch"
    assert rows["half-written"].task == "?" and rows["finished-run"].iterations == "1/2"
    assert rows["finished-run"].cost_usd == pytest.approx(0.01)
    text = render(RunsTable(list(rows.values()), "runs"))
    assert "running" in text and "finished" in text and "halfcheetah-run" in text
    # a width the table needs is measured, not assumed: at any width nothing is cut ("…"), a table or a list
    long_named = [dataclasses.replace(r, task="inverted-double-pendulum-balance-" + r.task) for r in rows.values()]
    for width in (80, 140, 160, 190, 240):
        text = render(RunsTable(long_named, "runs"), width=width)
        assert "…" not in text and "inverted-double-pendulum-balance-halfcheetah-run" in text, width


def test_cli_review_runs_and_missing_folder(review_run, cli):
    code, out, _ = cli("review", review_run, "--diff", "--a", "1.1", "--b", "2.1")
    assert code == 0 and "+import math" in out
    code, out, _ = cli("review", review_run, "--candidate", "1.2")
    assert code == 0 and "forbidden-import" in out
    code, out, _ = cli("review", review_run, "--diff", "--candidate", "2.1")
    assert code == 0 and "1.1 (fitness" in out and "→ 2.1 (fitness" in out  # --candidate is honoured
    code, out, _ = cli("runs", review_run.parent.parent)
    assert code == 0 and "interrupted" in out
    code, _, err = cli("review", review_run.parent / "missing")
    assert code == 2 and "no such run folder" in err
    code, _, err = cli("runs", review_run / "nope")
    assert code == 2 and "no such folder" in err


def test_partial_run_folder_still_reviews(review_run, tmp_path):
    partial = shutil.copytree(review_run, tmp_path / "partial")
    (partial / "run.json").unlink()
    shutil.rmtree(partial / "iter_2" / "cand_1" / "tb")
    (partial / "iter_2" / "cand_1" / "metrics.jsonl").unlink()
    (partial / "iter_2" / "cand_2" / "candidate.json").unlink()
    view = read_run(partial)
    text = render(review_view(view))
    assert "2.2" in text and "in progress" in text
    assert any("run.json: missing" in w for w in view.warnings)
    assert any("iter_2/cand_1: trained but metrics.jsonl is missing" in w for w in view.warnings)
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(RunFolderError, match="not a run folder"):
        read_run(empty)


def test_wrong_shapes_load_with_warnings(review_run, tmp_path):
    """Files that parse but do not fit their records: the field stays empty, a warning says which file, and every
    view still renders."""
    run = shutil.copytree(review_run, tmp_path / "wrong")
    cand = run / "iter_1" / "cand_1"

    def signed(path: Path, data) -> None:  # written (and signed) by the parent, but in the wrong shape
        CandidateFolder.at(path.parent if path.parent.name.startswith("cand_") else path.parent.parent).save_json(
            path, data)

    signed(cand / "analysis.json", [{"flags": []}])  # a list instead of an object
    signed(cand / "attempts.json", {"attempt": 0})  # an object instead of a list
    signed(run / "iter_1" / "cand_2" / "critic.json", {"accepted": False, "findings": ["boom"]})
    signed(run / "iter_2" / "cand_1" / "analysis.json", {"flags": ["x"], "feedback": "fb"})
    signed(run / "iter_2" / "cand_1" / "eval" / "evaluation.json", {"fitness": "high"})
    with open(cand / "metrics.jsonl", "a") as f:  # a line without a step count, a component that is not a number
        f.write(json.dumps({"kind": "eval", "timesteps": "late", "fitness": 1.0}) + "\n")
        f.write(json.dumps({"kind": "train", "timesteps": 2048, "components": {"a": 1.5, "b": "x", "c": True}}) + "\n")
    (run / "summary.json").write_text(json.dumps({"status": "finished", "final": {"fitness_mean": 1.0, "seeds": [1]}}))
    view = read_run(run)
    one, rejected, two = view.candidate("1.1"), view.candidate("1.2"), view.candidate("2.1")
    assert one.analysis is None and one.attempts == [] and one.flags == []
    assert rejected.critic is None and rejected.verdict == "-" and rejected.findings == []
    assert two.analysis is None and two.evaluation is None and two.fitness == two.record.fitness
    assert [e.timesteps for e in one.evals] == [256, 512, 768, 1024] and one.components == {"a": 1.5}
    assert view.summary is None
    for name in ("iter_1/cand_1/analysis.json", "iter_1/cand_1/attempts.json", "iter_1/cand_2/critic.json",
                 "iter_2/cand_1/analysis.json", "iter_2/cand_1/eval/evaluation.json", "summary.json"):
        assert any(w.startswith(f"{name}: not a valid") for w in view.warnings), name
    text = render(review_view(view)) + render(candidate_view(view, "1.1")) + render(candidate_view(view, "1.2"))
    assert "analysis: none (no analysis.json)" in text and "critic: no report" in text
    assert "no final retraining yet" in text and "summary.json: not a valid run summary" in text
    from rewardsmith.views.report.html import render_run

    html = render_run(view, view.warnings)
    assert "No final retraining yet" in html and "not a valid critic report" in html
    (run / "summary.json").write_text("{not json")
    assert any(w.startswith("summary.json: unreadable run summary") for w in read_run(run).warnings)


def test_the_result_table_and_review_say_how_sure_the_pick_is(review_run, tmp_path):
    """summary.json's selection carries the between-seed floor and the bootstrap confidence (issue 23); the end-of-run
    table and `review` print both."""
    from rewardsmith.run_folder.folder import RunFolder
    from rewardsmith.search.final import write_summary
    from rewardsmith.search.live import result_tables

    run = tmp_path / "run"
    shutil.copytree(review_run, run)
    folder = RunFolder(run)
    summary = write_summary(folder, folder.config().resolve(folder.spec()), folder.spec(), "finished", started=0.0)
    selection = summary["selection"]
    assert selection["floor"]["how"] == "none" and selection["confidence"]["method"].startswith("bootstrap")
    assert 0.0 <= selection["confidence"]["p_best"] <= 1.0 and selection["confidence"]["runner_up"] is not None
    table = render(result_tables(folder)[2], width=400)  # wide enough that no cell wraps a phrase
    assert "seed-to-seed spread not measured" in table and "P(winner is the best at its budget)" in table
    header = render(review_view(read_run(run)), width=200)
    assert "confidence P(winner is the best" in header and "selection " in header


def test_the_report_shows_the_mean_of_two_seeds_where_the_pick_compared_it(review_run, tmp_path):
    """A candidate the search trained again on a second seed is picked by the mean of both; the report's candidate
    table and best card showed its first seed alone, so a loser could look ahead of the winner."""
    from rewardsmith.views.report.html import render_run

    run = tmp_path / "run"
    shutil.copytree(review_run, run)
    first = read_run(run).candidate("1.1")
    assert first.record is not None and read_run(run).seed_fitness(first) is None
    repeat = {"candidate": "1.1", "budget": first.record.timesteps, "seeds": [0, 1],
              "fitness": [first.record.fitness, 0.125], "se": [0.01, 0.01]}
    (run / "seed_spread.json").write_text(json.dumps({"repeats": [repeat]}))  # where the pick reads its repeats
    view = read_run(run)
    seeds = view.seed_fitness(view.candidate("1.1"))
    assert seeds == [first.record.fitness, 0.125]
    # the pick's own estimate: the mean, and its se with the between-seed floor, measured from this one pair
    mean, se = view.search_fitness(view.candidate("1.1"))
    floor_variance = ((first.record.fitness - 0.125) ** 2 - 2 * 0.01**2) / 2  # the episodes' noise taken out
    assert mean == pytest.approx((first.record.fitness + 0.125) / 2)
    assert se == pytest.approx((2 * 0.01**2 / 4 + floor_variance / 2) ** 0.5)
    html = render_run(view, view.warnings)
    assert re.search(r"\(mean of 2 seeds: [-0-9.e]+, 0\.125\)", html)
    from rewardsmith.views.report.html import _env

    number = _env().filters["num"](mean)  # the candidate's card says the same number, not its first seed's
    assert re.search(rf"Candidate 1\.1.*search fitness {re.escape(number)} \(mean of 2 seeds\)", html)
    assert view.seed_fitness(view.candidate("1.2")) is None  # no repeat: its one seed, as before
    # `review`'s candidate table shows the same number, marked, where it showed the first seed alone
    from rewardsmith.formatting import cell
    from rewardsmith.views.tables import CandidatesTable

    table = render(CandidatesTable(view), width=200)
    row = next(line for line in table.splitlines() if line.strip().startswith("1.1"))
    assert f"{cell(mean, 3)} x2" in row
    assert "xN: the mean of N seeds" in table
    # and `export` writes the number the pick compared, with each seed's
    from rewardsmith.views.export import export_reward

    exported = export_reward(run, tmp_path / "out", candidate="1.1").read_text()
    assert re.search(r"search fitness of 1\.1: [-0-9.e]+ \(mean of 2 seeds: [-0-9.e]+, 0\.125; search budget\)", exported)
    assert "(mean of 2 seeds:" in (tmp_path / "out" / "README.md").read_text()
