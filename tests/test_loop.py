"""End-to-end search runs on a CI-sized pendulum task: scripted model, loopback HTTP server, failures, local model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from layout_snapshot import snapshot
from typer.testing import CliRunner

from rewardsmith.cli import app
from rewardsmith.config import RunConfig
from rewardsmith.errors import LLMError, RewardsmithError
from rewardsmith.formatting import cell
from rewardsmith.run_folder.folder import RunFolder
from rewardsmith.run_folder.names import strip_header
from rewardsmith.run_folder.records import CandidateRecord
from rewardsmith.search.evidence import load_evidence
from rewardsmith.search.loop import run as run_search
from rewardsmith.search.selection import best_record, ranked
from rewardsmith.testing import serve_scripted

DATA = Path(__file__).parent / "data"
TASK = "inverted-double-pendulum-balance"
EVENTS = {"run_started", "iteration_started", "candidate_designed", "critic_done", "repair_requested",
          "training_started", "training_done", "analysis_done", "iteration_done", "final_started", "final_done",
          "run_finished"}
SUMMARY_KEYS = {"status", "best_candidate", "best_fitness", "best_success_rate", "iterations", "tokens", "cost_usd",
                "final", "human_normalized", "wall_s", "candidates", "repair_requests", "llm_calls", "cached_calls"}
CANDIDATE_KEYS = {"id", "iteration", "index", "parent", "status", "reason", "repair_rounds", "tokens", "cost_usd",
                  "fitness", "fitness_se", "episodes", "success_rate", "wall_s", "timesteps", "template"}


@pytest.fixture
def spec_path(tiny_spec, tmp_path, monkeypatch) -> Path:
    """A CI-sized pendulum spec (3 eval episodes, so return/fitness correlation is defined); cwd and caches in tmp."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tiny_spec(TASK, timesteps=2048, eval_episodes=3)


def cli(*args: str) -> str:
    result = CliRunner().invoke(app, [str(a) for a in args])
    assert result.exit_code == 0, f"{result.output}\n{result.exception!r}"
    return result.output


def run_args(spec: Path, out: Path, *extra: str) -> list[str]:
    return ["run", str(spec), "--iterations", "2", "--samples", "3", "--workers", "2", "--out", str(out), *extra]


def all_json_valid(folder: Path) -> None:
    for path in folder.rglob("*.json"):
        json.loads(path.read_text())
    for path in folder.rglob("*.jsonl"):
        for line in path.read_text().splitlines():
            json.loads(line)


def designer_calls(folder: Path) -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted((folder / "llm").glob("*_designer.json"))]


def find(folder: Path, pattern: str, text: str) -> Path:
    """The one candidate folder with a file matching `pattern` that contains `text`."""
    hits = {p.parent for p in folder.glob(pattern) if text in p.read_text()}
    assert len(hits) == 1, f"expected one candidate with {text!r} in {pattern}, got {sorted(hits)}"
    return hits.pop()


def check_layout(out: Path) -> dict:
    """Assert the documented run folder layout; returns summary.json."""
    run = json.loads((out / "run.json").read_text())
    assert {"run_id", "task", "model", "api_base", "config", "versions", "seed", "started_at"} <= set(run)
    assert run["config"]["samples"] == 3 and run["config"]["iterations"] == 2 and run["config"]["timesteps"] == 2048
    assert {"python", "numpy", "torch", "stable-baselines3", "gymnasium", "mujoco", "litellm"} <= set(run["versions"])
    assert (out / "task.toml").read_text() == run["task"]["spec"]
    events = [json.loads(line) for line in (out / "events.jsonl").read_text().splitlines()]
    assert {e["event"] for e in events} >= EVENTS and all("t" in e for e in events)
    assert events[-1]["event"] == "run_finished" and not (out / "run.lock").exists()
    parents = {e["iteration"]: e["parent"] for e in events if e["event"] == "iteration_started"}
    assert parents[1] is None and parents[2] is not None
    for i in (1, 2):
        for j in (1, 2, 3):
            cand = out / f"iter_{i}" / f"cand_{j}"
            record = json.loads((cand / "candidate.json").read_text())
            assert set(record) == CANDIDATE_KEYS and record["id"] == f"{i}.{j}"
            assert record["status"] == "trained" and record["fitness"] is not None
            assert record["parent"] == parents[i]
            for name in ("reward.py", "critic.json", "attempts.json", "summary.json", "metrics.jsonl",
                         "policy.safetensors", "eval/evaluation.json", "eval/eval_episodes.jsonl", "model.zip",
                         "analysis.json"):
                assert (cand / name).is_file(), cand / name
            assert (cand / "reward.py").read_text().startswith(f"# rewardsmith candidate {i}.{j} (iteration {i}")
            rung_verdict = json.loads((cand / "rung_screen" / "screen.json").read_text())  # the first cut's screen
            assert rung_verdict["passed"] in (True, False)
            if rung_verdict["message"].startswith("passed without"):  # at 2,048 steps nothing need beat random
                assert "no archived policy does better than random" in rung_verdict["message"], rung_verdict
            assert RunFolder(out).cand(i, j).rung_screen() == rung_verdict  # signed: the evidence reads it back
            if i == 2:  # screened against iteration 1's archives; its worker ran only if they could judge
                verdict = json.loads((cand / "screen.json").read_text())
                judged = not verdict["message"].startswith("passed without a verdict")
                assert (cand / "screen" / "screen.json").is_file() == judged, verdict
        first_cut = json.loads((out / f"iter_{i}" / "halving.json").read_text())["rungs"][0]["candidates"]
        assert all(c["screen"] is not None for c in first_cut), first_cut
    summary = json.loads((out / "summary.json").read_text())
    assert set(summary) >= SUMMARY_KEYS and summary["status"] == "finished"
    assert summary["iterations"] == 2 and summary["candidates"] == 6
    best = json.loads((out / "best" / "candidate.json").read_text())
    assert best["id"] == summary["best_candidate"]
    best_dir = out / f"iter_{best['iteration']}" / f"cand_{best['index']}"
    assert (out / "best" / "reward.py").read_text() == (best_dir / "reward.py").read_text()
    assert (best_dir / "video.mp4").is_file()  # the overall best always gets a video
    assert summary["final"]["candidate"] == best["id"] and len(summary["final"]["seeds"]) == 2
    for seed in (0, 1):
        assert json.loads((out / "final" / f"seed_{seed}" / "summary.json").read_text())["status"] == "ok"
    all_json_valid(out)
    return summary


def without_video(layout: dict) -> dict:
    """Iteration listings without the best candidate's video files: which candidate wins at a CI budget is noise
    (fresh evaluation seeds), so only the rest of the layout is a fixed contract; the video's presence is checked
    in `check_layout`."""
    return {i: sorted([f for f in files if not f.startswith("video")] for files in cands)
            for i, cands in layout["iterations"].items()}


def check_second_prompt(out: Path, summary: dict) -> None:
    """The iteration-2 designer prompt holds the code, feedback and history of the best candidate at its start (the
    iteration's recorded parent; at this CI budget fitness is noise, so iteration 2 may still produce the overall
    best)."""
    events = [json.loads(line) for line in (out / "events.jsonl").read_text().splitlines()]
    parent = next(e["parent"] for e in events if e["event"] == "iteration_started" and e["iteration"] == 2)
    best = json.loads((out / f"iter_1/cand_{parent.split('.')[1]}/candidate.json").read_text())
    assert best["iteration"] == 1 and best["id"] == parent
    code = (out / f"iter_1/cand_{best['index']}/attempts.json").read_text()
    final_attempt = json.loads(code)[-1]["file"]
    best_code = (out / f"iter_1/cand_{best['index']}" / final_attempt).read_text().strip()
    feedback = json.loads((out / f"iter_1/cand_{best['index']}/analysis.json").read_text())["feedback"]
    second = [c for c in designer_calls(out) if c["sample"] >= 2000 and len(c["messages"]) >= 4]
    assert second, "no iteration-2 designer request carried the best-so-far feedback"
    messages = second[0]["messages"]  # the best reply kept as an assistant turn, then the feedback on it
    assert messages[2]["role"] == "assistant" and best_code in messages[2]["content"]
    prompt = messages[3]["content"]
    assert f"candidate {best['id']}, the best so far" in prompt and feedback.splitlines()[0] in prompt
    for cid in ("1.1", "1.2", "1.3"):
        assert f"| {cid} | - | trained |" in prompt
    first = [c for c in designer_calls(out) if c["sample"] < 2000 and len(c["messages"]) == 2]
    assert len(first) == 3, "iteration 1 has three plain samples"
    assert {c["sample"] for c in first} == {1000, 1001, 1002}  # run-unique sample numbers: iteration * 1000 + index - 1


@pytest.mark.slow
def test_scripted_run_end_to_end(spec_path, tmp_path):
    out = tmp_path / "run"
    output = cli(*run_args(spec_path, out, "--model", f"scripted:{DATA / 'loop_e2e.jsonl'}"))
    assert "candidates" in output and "final retraining" in output and str(out) in output.replace("\n", "")
    summary = check_layout(out)
    check_second_prompt(out, summary)
    recorded = json.loads((DATA / "run_layout_v0.json").read_text())
    got = snapshot(out)  # the layout is a contract: if it changes on purpose, record it anew (layout_snapshot.py)
    assert got["keys"] == recorded["keys"] and without_video(got) == without_video(recorded)
    assert {"missing": sorted(set(recorded["files"]) - set(got["files"])),
            "new": sorted(set(got["files"]) - set(recorded["files"]))} == {"missing": [], "new": []}
    assert summary["llm_calls"] == 9 and summary["cached_calls"] == 0 and summary["tokens"] > 0
    signal = summary["signal"]  # judged against the run's random-policy episodes, before the final retraining
    assert signal["verdict"] in {"learned", "nothing_learned", "indistinguishable"} and signal["random_fitness"] is not None
    assert (signal["verdict"] == "learned") == ("signal" not in output.split("selection", 1)[-1])

    buggy = find(out, "iter_1/cand_*/attempt_0.py", "tip_heigth")
    attempts = json.loads((buggy / "attempts.json").read_text())
    assert [a["accepted"] for a in attempts] == [False, True]
    assert any("NameError" in f and "tip_heigth" in f for f in attempts[0]["findings"])
    assert json.loads((buggy / "attempt_0.critic.json").read_text())["accepted"] is False
    assert "tip_heigth" not in (buggy / "reward.py").read_text()
    assert json.loads((buggy / "candidate.json").read_text())["repair_rounds"] == 1
    repair_prompt = next(c for c in designer_calls(out) if len(c["messages"]) == 4 and "tip_heigth" in c["messages"][3]["content"])
    assert "NameError" in repair_prompt["messages"][3]["content"]

    hacking = find(out, "iter_1/cand_*/reward.py", "low_tip")
    flags = [f["code"] for f in json.loads((hacking / "analysis.json").read_text())["flags"]]
    assert "reward-hacking" not in flags  # 3 evaluation episodes of noise-level fitness are too few to call it
    second = next(c for c in designer_calls(out) if c["sample"] >= 2000 and len(c["messages"]) >= 4)
    assert f"| {json.loads((hacking / 'candidate.json').read_text())['id']} | - | trained |" in second["messages"][3]["content"]

    no_code = find(out, "iter_2/cand_*/attempt_0.reply.md", "I am sorry")
    attempts = json.loads((no_code / "attempts.json").read_text())
    assert "no Python code" in attempts[0]["findings"][0] and attempts[1]["accepted"]
    assert json.loads((no_code / "candidate.json").read_text())["repair_rounds"] == 1
    # a reply cut off inside its code is asked again with twice the token cap, not sent back as a repair
    calls = designer_calls(out)
    cut = next(c for c in calls if c["response"].rstrip().endswith("(tip_height - 1.0"))
    again = next(c for c in calls if c["number"] > cut["number"] and c["messages"] == cut["messages"]
                 and c["sample"] == cut["sample"])
    assert again["max_tokens"] == 2 * cut["max_tokens"] and "```" in again["response"].split("```python", 1)[1]
    assert summary["repair_requests"] == 2
    records = [CandidateRecord.model_validate_json(p.read_text()) for p in out.glob("iter_*/cand_*/candidate.json")]
    evidence = load_evidence(RunFolder(out))  # the run's seed floor and critic warnings, as the run ranked them
    assert summary["best_candidate"] == best_record(records, evidence=evidence).id  # the noise-aware rule
    assert summary["selection"]["winner"] == summary["best_candidate"]
    assert summary["selection"]["distinguishable"] in (True, False)


@pytest.mark.slow
def test_run_through_loopback_http_server(spec_path, tmp_path, monkeypatch):
    """The same search through litellm's real HTTP path, with the critic's LLM review on (one REVISE)."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    out = tmp_path / "run"
    with serve_scripted(DATA / "loop_http.jsonl") as server:
        cli(*run_args(spec_path, out, "--model", "openai/scripted", "--api-base", server.url, "--semantic"))
    summary = check_layout(out)
    check_second_prompt(out, summary)
    recorded = json.loads((DATA / "run_layout_v0.json").read_text())
    got = snapshot(out)  # the layout is a contract: if it changes on purpose, record it anew (layout_snapshot.py)
    assert got["keys"] == recorded["keys"]  # its candidates differ from the recorded scenario's; the records do not
    files = {name for name in got["files"] if not name.startswith("llm/")}  # call logs are named by role
    assert files == {name for name in recorded["files"] if not name.startswith("llm/")}
    # the cut-off reply is asked again, not repaired: its retry takes the designer line its repair took before
    assert server.roles.count("designer") == 10 and server.roles.count("critic") == 7
    assert summary["llm_calls"] == 17 and summary["repair_requests"] == 3
    events = [json.loads(line) for line in (out / "events.jsonl").read_text().splitlines()]
    revised = [e for e in events if e["event"] == "repair_requested" and any("semantic-revise" in f for f in e["findings"])]
    assert len(revised) == 1


def test_iteration_retried_then_clear_error(spec_path, tmp_path):
    """All candidates fail: the iteration is retried with the errors as feedback, then the run stops, saved."""
    out = tmp_path / "run"
    config = RunConfig(task=str(spec_path), model=f"scripted:{DATA / 'loop_all_fail.jsonl'}", iterations=1, samples=1,
                       repair_rounds=0, iteration_retries=2, workers=1, out=out)
    with pytest.raises(RewardsmithError, match="none of the 3 candidates could be trained after 2 retries"):
        run_search(config)
    records = [json.loads((out / f"iter_1/cand_{j}/candidate.json").read_text()) for j in (1, 2, 3)]
    assert [r["status"] for r in records] == ["rejected"] * 3
    assert "no Python code" in records[0]["reason"] and "compute_reward" in records[1]["reason"]
    calls = designer_calls(out)
    assert len(calls) == 3 and "failed" not in calls[0]["messages"][1]["content"]
    assert "The previous attempt at this iteration failed" in calls[2]["messages"][1]["content"]
    assert records[1]["reason"][:40] in calls[2]["messages"][1]["content"]
    folder = RunFolder(out)
    assert folder.status() == "failed" and folder.summary()["status"] == "failed"
    assert folder.events()[-1]["event"] == "run_failed"


def test_provider_down_saves_a_resumable_run(spec_path, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("REWARDSMITH_LLM_ATTEMPTS", "1")
    out = tmp_path / "run"
    config = RunConfig(task=str(spec_path), model="openai/scripted", api_base="http://127.0.0.1:9/v1", iterations=1,
                       samples=1, workers=1, out=out)
    with pytest.raises(LLMError, match="127.0.0.1:9"):
        run_search(config)
    folder = RunFolder(out)
    assert folder.status() == "failed" and "127.0.0.1:9" in folder.summary()["error"]
    assert not (out / "run.lock").exists() and (out / "task.toml").is_file()
    all_json_valid(out)


@pytest.mark.slow
def test_local_model_run_completes(spec_path, tmp_path):
    """The built-in tiny model drives a whole run (one completion, about a minute on 2 cores); its rewards may be
    poor or unusable, but the run ends cleanly either way."""
    pytest.importorskip("xllamacpp")
    out = tmp_path / "run"
    config = RunConfig(task=str(spec_path), model="local", iterations=1, samples=1, repair_rounds=0,
                       iteration_retries=0, timesteps=1024, final_timesteps=1024, final_seeds=1, workers=2,
                       max_tokens=384, out=out)
    try:
        run_search(config)
    except RewardsmithError as e:
        assert "could be trained" in str(e)
    folder = RunFolder(out)
    assert folder.status() in ("finished", "failed") and folder.summary() is not None
    assert folder.llm_totals()["llm_calls"] >= 1
    all_json_valid(out)


def test_unproductive_later_iteration_keeps_the_best(spec_path, tmp_path):
    """Iteration 2 yields nothing trainable even after retries: the run keeps 1.1 and still finishes."""
    out = tmp_path / "run"
    config = RunConfig(task=str(spec_path), model=f"scripted:{DATA / 'loop_unproductive.jsonl'}", iterations=2,
                       samples=1, repair_rounds=0, iteration_retries=2, workers=1, final_seeds=0, out=out)
    folder = run_search(config)
    summary = folder.summary()
    assert summary["status"] == "finished" and summary["best_candidate"] == "1.1"
    unproductive = [e for e in folder.events() if e["event"] == "iteration_unproductive"]
    assert len(unproductive) == 1 and unproductive[0]["iteration"] == 2
    assert all("no Python code" in error for error in unproductive[0]["errors"])
    assert [r.status for r in folder.candidates()] == ["trained", "rejected", "rejected", "rejected"]


@pytest.mark.slow
def test_a_round_that_only_repeats_earlier_code_is_not_asked_again(spec_path, tmp_path):
    """Iteration 2's only reply repeats 1.1 (up to comments): the round is not retried, since the same prompt would
    bring the same code (the local model's template does), and the run keeps 1.1."""
    config = RunConfig(task=str(spec_path), model=f"scripted:{DATA / 'loop_repeated.jsonl'}", iterations=2,
                       samples=1, repair_rounds=0, iteration_retries=2, workers=1, final_seeds=0, out=tmp_path / "run")
    folder = run_search(config)
    assert [(r.id, r.status) for r in folder.candidates()] == [("1.1", "trained"), ("2.1", "rejected")]
    assert folder.candidate(2, 1).reason == "[dedupe] same code as candidate 1.1"
    assert [e["iteration"] for e in folder.events() if e["event"] == "iteration_unproductive"] == [2]
    assert folder.summary()["status"] == "finished" and folder.summary()["best_candidate"] == "1.1"


def test_eureka_strategy_resolves_to_eurekas_shape(tiny_spec):
    from rewardsmith.task import read_task

    spec = read_task(tiny_spec(TASK))
    eureka = RunConfig(task=TASK, strategy="eureka").resolve(spec)
    assert (eureka.samples, eureka.iterations, eureka.rung_fractions()) == (16, 5, [1.0])
    default = RunConfig(task=TASK).resolve(spec)
    assert (default.samples, default.iterations) == (spec.search.samples, spec.search.iterations)
    assert len(default.rung_fractions()) > 1
    assert RunConfig(task=TASK, strategy="eureka", samples=3).resolve(spec).samples == 3  # explicit wins


@pytest.mark.slow
def test_strategy_eureka_trains_every_candidate_and_final_seeds_0_skips(spec_path, tmp_path):
    """Eureka trains every accepted candidate once at the full budget (no rungs); `--final-seeds 0` skips the
    final retraining and says so."""
    out = tmp_path / "run"
    output = cli("run", spec_path, "--iterations", "1", "--samples", "3", "--workers", "2", "--timesteps", "4096",
                 "--strategy", "eureka", "--final-seeds", "0", "--out", out,
                 "--model", f"scripted:{DATA / 'loop_e2e.jsonl'}")
    folder = RunFolder(out)
    records = folder.candidates()
    assert [r.status for r in records] == ["trained"] * 3
    assert all(r.timesteps == 4096 for r in records)
    started = [e for e in folder.events() if e["event"] == "training_started"]
    assert len(started) == 3 and all(e["timesteps"] == 4096 and not e.get("resumed_from") for e in started)
    assert "final retraining skipped" in output
    summary = folder.summary()
    assert summary["final"] is None and any(e["event"] == "final_skipped" for e in folder.events())
    assert summary["best_candidate"] == best_record(records, rule="mean").id  # Eureka: the highest mean wins


@pytest.mark.slow
def test_successive_halving_resumes_and_the_final_reuses_the_full_budget(spec_path, tmp_path):
    """Rungs of 2048 and 4096 steps: all three train 2048, the top two resume from their own checkpoint for the
    remaining 2048 (not 4096 from scratch); the winner already trained 4096 steps on seed 0, so the final
    retraining on seed 0 reuses it and announces 0 new steps."""
    out = tmp_path / "run"
    output = cli("run", spec_path, "--iterations", "1", "--samples", "3", "--workers", "2", "--timesteps", "4096",
                 "--final-timesteps", "4096", "--final-seeds", "1", "--rungs", "0.5,1", "--keep", "0.5",
                 "--no-stop-flat", "--out", out, "--model", f"scripted:{DATA / 'loop_e2e.jsonl'}")
    folder = RunFolder(out)
    halving = json.loads((out / "iter_1" / "halving.json").read_text())
    assert halving["budgets"] == [2048, 4096]
    # two go on, or all three when the third cannot be told from the cut line (noise at 2,048 steps)
    going = sum(c["next"].startswith("promoted") for c in halving["rungs"][0]["candidates"])
    assert going in (2, 3) and [r["steps"] for r in halving["rungs"]] == [3 * 2048, going * 2048], halving
    started = [e for e in folder.events() if e["event"] == "training_started"]
    resumed = [e for e in started if e.get("resumed_from")]
    assert len(started) == 3 + going and len(resumed) == going and all(e["resumed_from"] == 2048 for e in resumed)
    by_id = {r.id: r for r in folder.candidates()}
    for e in resumed:
        assert by_id[e["candidate"]].timesteps == 4096
        cand = folder.cand_dir(by_id[e["candidate"]].iteration, by_id[e["candidate"]].index)
        assert (cand / "checkpoint.safetensors").is_file()
        assert json.loads((cand / "summary.json").read_text())["timesteps"] == 4096
    summary = folder.summary()
    assert by_id[summary["best_candidate"]].timesteps == 4096  # a rung-1 dropout cannot win on a lucky number
    final = next(e for e in folder.events() if e["event"] == "final_started")
    assert final["steps"] == 0 and final["plan"] == {"0": "reuse"}
    assert "final retraining of" in output and "0 new env steps" in output
    # the reused training is measured again on fresh episodes: the number that selected it is not the result
    done = next(e for e in folder.events() if e["event"] == "final_seed_done")
    again = json.loads((out / "final" / "seed_0" / "eval" / "evaluation.json").read_text())
    best = by_id[summary["best_candidate"]]
    searched = json.loads((folder.cand_dir(best.iteration, best.index) / "eval" / "evaluation.json").read_text())
    assert done["reused"] is True and done["fitness"] == again["fitness_mean"] == summary["final"]["fitness_mean"]
    assert not set(again["seeds"]) & set(searched["seeds"]) and again["timesteps"] == 4096
    # the winner is never returned on one training: the last rung trained it on a second seed too
    assert len(summary["best_seeds"]) == 2 and summary["best_seeds"][0] == best.fitness
    assert f"search fitness {cell(sum(summary['best_seeds']) / 2)} (mean of 2 seeds" in output


@pytest.mark.slow
def test_crossover_combines_the_two_best_candidates(spec_path, tmp_path):
    """`--crossover`: iteration 2's last sample is asked to combine the two best candidates of iteration 1; its
    request carries both parents' code and feedback, and the candidate records both parents."""
    out = tmp_path / "run"
    cli(*run_args(spec_path, out, "--crossover", "--final-seeds", "0", "--model",
                  f"scripted:{DATA / 'loop_e2e.jsonl'}"))
    events = [json.loads(line) for line in (out / "events.jsonl").read_text().splitlines()]
    crossed = [e for e in events if e["event"] == "crossover_requested"]
    assert [e["candidate"] for e in crossed] == ["2.3"]  # none in iteration 1: there were no two parents yet
    first, second = crossed[0]["parents"]
    folder = RunFolder(out)
    by_id = {r.id: r for r in folder.candidates()}
    assert by_id["2.3"].parent == f"{first}+{second}"
    assert by_id[first].iteration == by_id[second].iteration == 1
    order = [r.id for r in ranked(folder.candidates(), before=2)]
    assert order[:2] == [first, second]  # the two best by the run's rule (the lower confidence bound)
    request = next(c for c in designer_calls(out) if c["sample"] == 2002)["messages"]
    assert len(request) == 2 and "Combine the two best rewards" in request[1]["content"]
    for parent in (first, second):
        code = strip_header((out / f"iter_1/cand_{by_id[parent].index}/reward.py").read_text()).strip()
        assert code in request[1]["content"]
