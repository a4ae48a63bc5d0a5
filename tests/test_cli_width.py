"""The first hour, through a pipe at 80 columns: the quick start's command at CI size (the final retraining follows
`--timesteps`), and `tasks`, `runs`, `run` and `--help` never cut a name the user must type."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import make_tiny_spec

from rewardsmith.task import ENVS_DIR, list_tasks

TASK = "inverted-double-pendulum-balance"
REWARD = (ENVS_DIR / "examples" / "inverted_double_pendulum_balance.py").read_text()


def rewardsmith(*args: object, cwd: Path, columns: int = 80, timeout: int = 600) -> subprocess.CompletedProcess:
    """The real console entry point, stdout and stderr to pipes, COLUMNS as given."""
    env = {**os.environ, "COLUMNS": str(columns), "NO_COLOR": "1"}
    env.pop("OPENAI_API_KEY", None)
    return subprocess.run([sys.executable, "-m", "rewardsmith", *map(str, args)], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=timeout)


def words(text: str) -> set[str]:
    return set(re.findall(r"[\w./<>*-]+", text))


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory) -> tuple[Path, subprocess.CompletedProcess]:
    """README's first command at CI size: a spec whose own final budget (4096) differs from --timesteps (1024)."""
    work = tmp_path_factory.mktemp("quick")
    spec = make_tiny_spec(work, TASK, final_timesteps=4096, eval_episodes=2)
    script = work / "script.jsonl"
    variants = [REWARD.replace("return sum(components.values()), components",
                               f"return {1 + k / 10} * sum(components.values()), components") for k in range(12)]
    assert variants[0] != REWARD
    variants.insert(1, variants[0])  # candidate 1.2 repeats 1.1: the report collapses it to one linked line
    script.write_text("".join(json.dumps({"role": "designer", "content": f"```python\n{v}\n```"}) + "\n"
                              for v in variants))
    out = work / "runs" / TASK / "quick-start-run-with-a-long-folder-name-0123456789"
    done = rewardsmith("run", spec, "--iterations", "2", "--samples", "2", "--timesteps", "1024", "--final-seeds",
                       "2", "--workers", "2", "--model", f"scripted:{script}", "--out", out, cwd=work)
    assert done.returncode == 0, done.stdout + done.stderr
    return out, done


@pytest.mark.slow
def test_quick_start_final_retraining_follows_timesteps(quick_run):
    out, done = quick_run
    summary = json.loads((out / "summary.json").read_text())
    final = summary["final"]
    assert final["timesteps"] == 1024 and len(final["seeds"]) == 2  # not the spec's 4096
    assert json.loads((out / "run.json").read_text())["config"]["final_timesteps"] == 1024
    trained = [json.loads(p.read_text()) for p in out.glob("iter_*/cand_*/candidate.json")]
    assert trained and all(c["timesteps"] <= 1024 for c in trained)  # the search stays within --timesteps too
    text = done.stdout
    assert "result" in text and "std, n=2" in text and "search fitness" in text


@pytest.mark.slow
def test_run_output_keeps_lines_and_names_whole_at_80_columns(quick_run):
    out, done = quick_run
    assert str(out) in done.stdout  # the run folder, typed into review/report, is on one line
    for line in done.stdout.splitlines():  # log lines ([HH:MM:SS] ...) and paths are kept whole, the rest fits
        if not re.match(r"\[\d\d:\d\d:\d\d\] |run folder: |best reward: |next: ", line):
            assert len(line) <= 80, line
    assert "…" not in done.stdout


@pytest.mark.slow
def test_runs_at_80_columns_and_json(quick_run):
    out, _ = quick_run
    done = rewardsmith("runs", out.parent.parent, cwd=out.parent)
    assert done.returncode == 0, done.stderr
    assert f"{TASK}/{out.name}" in done.stdout.splitlines()[1:3] and "…" not in done.stdout
    assert "std, n=2" in done.stdout  # the result is the final retraining, with its uncertainty
    listed = json.loads(rewardsmith("runs", out.parent.parent, "--json", cwd=out.parent).stdout)
    assert listed[0]["result"]["n"] == 2 and listed[0]["result"]["timesteps"] == 1024
    assert listed[0]["best_search_fitness"] is not None


def test_tasks_at_80_columns_never_cuts_a_name(tmp_path):
    done = rewardsmith("tasks", cwd=tmp_path)
    assert done.returncode == 0 and "…" not in done.stdout
    lines = done.stdout.splitlines()
    for spec in list_tasks(ENVS_DIR):
        assert any(line.split()[:1] == [spec.name] for line in lines), spec.name
    assert max(len(line) for line in lines if not line.startswith("tasks in")) <= 80


@pytest.mark.parametrize("verb", ["", "run", "batch", "review", "check", "runs", "logs", "evaluate", "prompt", "report"])
def test_help_at_80_columns_is_whole(tmp_path, verb):
    done = rewardsmith(*([verb] if verb else []), "--help", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "…" not in done.stdout and "..." not in done.stdout.replace("[ARGS]...", "")
    assert max(len(line) for line in done.stdout.splitlines()) <= 80
    if verb == "run":
        for option in ("--timesteps", "--final-timesteps", "--shared-cache", "--no-cache", "--model"):
            assert option in words(done.stdout)
        assert "$REWARDSMITH_MODEL," in done.stdout


def test_version(tmp_path):
    from rewardsmith import __version__

    done = rewardsmith("--version", cwd=tmp_path)
    assert done.returncode == 0 and done.stdout.strip() == f"rewardsmith {__version__}"


@pytest.mark.slow
def test_report_of_the_quick_run(quick_run, tmp_path):
    out, _ = quick_run
    done = rewardsmith("report", out, "--no-videos", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    html = (out / "report.html").read_text()
    assert 'id="final"' in html and 'id="final-seeds"' in html and "std, n=2" in html
    assert 'class="duplicate" id="cand-1-2"' in html and 'href="#cand-1-1">candidate 1.1</a>' in html
    assert html.count('<section class="card') == len(list(out.glob("iter_*/cand_*"))) - 1
    assert "<th class=\"num\">sample</th>" in html and ">1,000<" not in html  # raw sample numbers


@pytest.mark.slow
def test_logs_and_evaluate_on_the_quick_run(quick_run, tmp_path):
    out, _ = quick_run
    done = rewardsmith("logs", out, "--candidate", "1.2", cwd=tmp_path)
    assert done.returncode == 0 and re.search(r"#\d designer · candidate 1\.2", done.stdout), done.stdout
    assert "candidate 1.1" not in done.stdout and "response" in done.stdout
    assert "system message" in done.stdout and "def compute_reward" in done.stdout
    listed = json.loads(rewardsmith("logs", out, "--json", "-n", "1", cwd=tmp_path).stdout)
    assert len(listed) == 1 and listed[0]["role"] == "designer" and listed[0]["messages"]
    missing = rewardsmith("logs", out, "--candidate", "9.9", cwd=tmp_path)
    assert missing.returncode == 2 and "no LLM call for candidate '9.9'" in missing.stderr
    before = sorted(p.relative_to(out) for p in out.rglob("*"))
    done = rewardsmith("evaluate", out, "--episodes", "2", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert re.search(r"evaluating final retraining, seed \d+, of run", done.stdout) and "std, n=2" in done.stdout
    assert sorted(p.relative_to(out) for p in out.rglob("*")) == before  # the run folder is not written to


def test_plain_progress_shows_an_eta(monkeypatch):
    from io import StringIO

    from rich.console import Console

    from rewardsmith.search import live

    now = [100.0]
    monkeypatch.setattr(live.time, "monotonic", lambda: now[0])
    buffer = StringIO()
    plain = live.PlainProgress(Console(file=buffer, width=80))
    plain.update("1.1", "training", done=0, total=1000)
    now[0] += 5
    plain.update("1.1", "training", done=50, total=1000)  # stepping from here: 5 s of fixed cost before
    now[0] += 30
    plain.update("1.1", "training", done=250, total=1000)  # 200 steps in 30 s of its own: 750 left
    assert "1.1 training 25% (ETA ~1m52s, rough)" in buffer.getvalue()  # no finished job of this run measured yet


def test_reply_eta_comes_from_this_runs_measured_replies(monkeypatch):
    """Before any reply is measured there is no ETA, only the elapsed time; then the ETA is the median time from
    asking to answer, less the time waited; replayed replies do not count."""
    from io import StringIO

    from rich.console import Console

    from rewardsmith.search import live

    now = [100.0]
    monkeypatch.setattr(live.time, "monotonic", lambda: now[0])
    buffer = StringIO()
    plain = live.PlainProgress(Console(file=buffer, width=80))
    clock = live.ReplyClock()
    ticker = live.ReplyTicker(plain, clock, ["1.1", "1.2", "1.3"])
    now[0] += 31
    ticker.tick()
    assert "1.1 designing 31s (ETA after the first reply)" in buffer.getvalue()
    ticker.arrived("1.1", 40.0, cached=False)
    ticker.arrived("1.2", 0.01, cached=True)  # replayed from the cache: no measure of the model
    assert clock.eta(10.0) == live.Eta(30.0, rough=True) and clock.eta(45.0) is None  # past the typical time
    now[0] += 2
    ticker.tick()
    assert "1.3" not in buffer.getvalue().split("ETA after the first reply")[-1]  # 33 s: no new line yet
    now[0] += 30
    ticker.tick()  # 63 s in: past the typical 40 s, so only the elapsed time
    assert "1.3 designing 1m03s (taking longer than this run's typical reply)" in buffer.getvalue()
    second = live.ReplyTicker(plain, clock, ["2.1"])
    now[0] += 30
    second.tick()
    assert "2.1 designing 30s (ETA ~10s, rough)" in buffer.getvalue()  # one measured reply: rough


def test_evaluation_progress_reads_as_its_own_phase():
    from rewardsmith.search.eta import Eta
    from rewardsmith.search.live import describe_state

    assert describe_state("evaluating", {"done": 150, "total": 300, "eta": Eta(12, False)}) == "evaluating 50% (ETA 12s)"
