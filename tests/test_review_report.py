"""`rewardsmith report` and policy videos: one self-contained HTML file, checked in headless Chromium."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from review_fixture import build_review_run

from rewardsmith.errors import RewardsmithError
from rewardsmith.stages.video import encode_video, load_frames
from rewardsmith.views.report import write_any_report

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
         "--disable-sync", "--no-first-run", "--disable-quic"]


@pytest.fixture(scope="session")
def review_run(tmp_path_factory) -> Path:
    return build_review_run(tmp_path_factory.getbasetemp() / "review_run")


@pytest.fixture(scope="session")
def report(review_run, tmp_path_factory) -> tuple[Path, list[str]]:
    run = shutil.copytree(review_run, tmp_path_factory.mktemp("report") / "run")
    return write_any_report(run)


def test_report_is_self_contained_with_videos(report):
    path, warnings = report
    html = path.read_text()
    assert path.name == "report.html"
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", html), "the report must not load anything remote"
    assert html.count("<svg") >= 4 and 'class="code reward"' in html
    for video in ("iter_1/cand_1/video.mp4", "iter_2/cand_1/video.mp4"):
        size = (path.parent / video).stat().st_size
        assert 1_000 < size < 1_000_000
        assert f"embedded in this page ({video} in the run folder)" in html  # the page works when copied alone
    assert html.count('src="data:video/mp4;base64,') == 2 and 'src="iter_' not in html
    assert "llm/0001_designer.json" in html and "rewardsmith logs" in html
    assert 'id="final"' in html and "search fitness" in html.lower()
    assert "forbidden-import" in html and "dominant-component" in html and "no-progress" in html
    assert any("corrupt line skipped" in w for w in warnings)


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (CI installs it); the DOM check needs it")
def test_report_renders_in_headless_chromium(report, tmp_path):
    path, _ = report
    url = path.resolve().as_uri()
    base = [CHROMIUM, *FLAGS, f"--user-data-dir={tmp_path / 'profile'}"]
    shot = tmp_path / "report.png"
    subprocess.run([*base, f"--screenshot={shot}", "--window-size=1280,2400", url], capture_output=True, timeout=120,
                   check=True)
    assert shot.stat().st_size > 50_000
    dom = subprocess.run([*base, "--dump-dom", url], capture_output=True, text=True, timeout=120, check=True).stdout
    assert 'id="plot-progress"' in dom and 'id="plot-curves"' in dom and dom.count("<svg") >= 4
    assert re.search(r'<table id="candidates">.*2\.2.*</table>', dom, re.S)
    assert '<video class="policy-video"' in dom and 'class="code reward"' in dom and "diff against parent 1.1" in dom
    shutil.copy(shot, path.parent / "report.png")  # kept beside the report for a person to look at


def test_batch_report_links_each_run(review_run, tmp_path):
    batch = tmp_path / "batch"
    shutil.copytree(review_run, batch / "halfcheetah-run" / "20250101-120000-abc123", ignore=shutil.ignore_patterns(
        "model.zip"))
    (batch / "batch.json").write_text('{"name": "locomotion"}')
    path, _ = write_any_report(batch, videos=False)
    html = path.read_text()
    assert path.name == "batch_report.html"
    assert 'href="halfcheetah-run/20250101-120000-abc123/report.html"' in html
    assert (batch / "halfcheetah-run" / "20250101-120000-abc123" / "report.html").is_file()
    # the run's result (its final retraining) and the search fitness the pick compared, each under its own name
    from rewardsmith.formatting import with_seeds
    from rewardsmith.views.run_view import read_run
    from rewardsmith.views.tables import run_result

    run = batch / "halfcheetah-run" / "20250101-120000-abc123"
    view = read_run(run)
    assert view.best is not None and "<th>result (final)</th>" in html and "<th>search fitness</th>" in html
    headline = run_result(run)
    assert f"<td class=\"num\">{headline}</td>" in html  # this fixture has no final: "search ... (no final yet)"
    searched = with_seeds(view.search_fitness(view.best)[0], len(view.seed_fitness(view.best) or ()))
    assert f'<td class="num">{searched}</td>' in html


def test_frames_from_a_worker_are_validated_and_encoded(tmp_path):
    frames = np.random.default_rng(0).integers(0, 255, (20, 60, 80, 3), dtype=np.uint8)
    np.save(tmp_path / "frames.npy", frames)
    video = encode_video(load_frames(tmp_path / "frames.npy"), tmp_path, fps=10)
    assert video.name == "video.mp4" and video.stat().st_size > 0
    np.save(tmp_path / "bad.npy", frames.astype(np.float32))
    with pytest.raises(RewardsmithError, match="uint8"):
        load_frames(tmp_path / "bad.npy")
    np.save(tmp_path / "obj.npy", np.array([{"a": 1}], dtype=object), allow_pickle=True)
    with pytest.raises(RewardsmithError, match="unreadable"):
        load_frames(tmp_path / "obj.npy")


def test_final_curves_draw_each_reused_seed_from_its_own_search_training(tmp_path):
    """A final seed that reused the search's training on that seed is drawn from that training: seed 0 from the
    winner's own folder, seed 1 from its repeat on seed 1 (not the winner's folder again), a seed with no training
    anywhere not at all."""
    import json

    from rewardsmith.run_folder.records import FinalResult, FinalSeed
    from rewardsmith.views.report.plots import final_curves, search_training_of_seed

    cand = tmp_path / "iter_2" / "cand_2"

    def training(folder: Path, seed: int, fitness: float) -> None:
        folder.mkdir(parents=True)
        (folder / "job.json").write_text(json.dumps({"mode": "train", "seed": seed}))
        rows = [{"kind": "eval", "timesteps": t, "fitness": fitness} for t in (5000, 10000)]
        (folder / "metrics.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))

    training(cand, 0, 0.25)
    training(cand / "second_seed" / "5000", 1, 0.5)
    training(cand / "second_seed" / "20000", 1, 0.75)
    assert search_training_of_seed(cand, 0) == (cand, "search training")
    assert search_training_of_seed(cand, 1) == (cand / "second_seed" / "20000", "search repeat")
    assert search_training_of_seed(cand, 2) is None
    final = FinalResult(candidate="2.2", seeds=[FinalSeed(seed=s) for s in (0, 1, 2)])
    svg = final_curves(tmp_path, final)
    assert svg is not None
    assert re.findall(r"seed \d[^<]*", svg) == ["seed 0 (2.2's search training)", "seed 1 (2.2's search repeat)"]
