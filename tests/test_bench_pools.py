"""The labelled reward pools of bench/strategies.py: size, labels, order, static contract; no RL here."""

from __future__ import annotations

import ast
import importlib
import json
import sys
from pathlib import Path

import pytest

from rewardsmith.reward.contract import require_static_ok
from rewardsmith.stages.designer import is_duplicate

BENCH = Path(__file__).resolve().parents[1] / "bench"


@pytest.fixture(scope="module")
def bench(request):
    """bench/strategies.py and bench/screen_calibration.py as modules (bench/ is not a package)."""
    sys.path.insert(0, str(BENCH))
    request.addfinalizer(lambda: sys.path.remove(str(BENCH)))
    return importlib.import_module("strategies"), importlib.import_module("screen_calibration")


def all_files(strategies):
    return [(task, p) for task in strategies.TASKS for p in sum(strategies.pool(task), [])]


def test_every_pool_is_eureka_sized_with_a_realistic_mix(bench):
    strategies, _ = bench
    for task in strategies.TASKS:
        samples, repairs = strategies.pool(task)
        assert len(samples) == 16, task  # Eureka's K
        labels = [strategies.label(p) for p in samples]
        assert 4 <= labels.count("good") <= 5, (task, labels)
        assert 3 <= labels.count("weak") <= 4, (task, labels)
        assert labels.count("reward-hacking") == 3, (task, labels)
        assert labels.count("buggy") == 2, (task, labels)
        assert 1 <= labels.count("slow") <= 2, (task, labels)
        # every sample the critic rejects asks for one repair (repair_rounds=1): the pool answers each one
        rejected = sum(lab in strategies.REJECTED for lab in labels)
        assert len(repairs) >= rejected, task
        assert {strategies.label(p) for p in repairs} <= {"good", "slow"}, task


def test_every_label_is_known_and_matches_the_docstring(bench):
    strategies, _ = bench
    for _, path in all_files(strategies):
        lab = strategies.label(path)
        assert lab in strategies.LABELS, path
        doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
        assert doc.startswith(f"Hand-written pool entry, label: {lab}. "), (path, doc[:80])


def test_label_keeps_the_hyphenated_reward_hacking_label(bench):
    strategies, _ = bench
    assert strategies.label(Path("s4_reward-hacking_forward.py")) == "reward-hacking"
    assert strategies.label(Path("s6_slow.py")) == "slow"
    assert strategies.label(Path("r1_good_repaired.py")) == "good"


def test_pool_orders_numerically(bench):
    strategies, _ = bench
    for task in strategies.TASKS:
        samples, repairs = strategies.pool(task)
        assert [strategies.number(p) for p in samples] == list(range(1, 17)), task
        assert [strategies.number(p) for p in repairs] == list(range(1, len(repairs) + 1)), task
        assert samples[9].name.startswith("s10_"), task  # s10 after s9, not after s1


def test_good_weak_and_hacking_entries_pass_the_static_contract(bench):
    strategies, _ = bench
    checked = 0
    for _, path in all_files(strategies):
        if strategies.label(path) in ("good", "weak", "reward-hacking"):
            require_static_ok(path)  # raises RewardFileError with the first finding
            checked += 1
    assert checked >= 3 * 12


def test_no_two_entries_of_a_pool_are_the_same_code(bench):
    strategies, _ = bench
    for task in strategies.TASKS:
        codes = [p.read_text(encoding="utf-8") for p in sum(strategies.pool(task), [])]
        for k, code in enumerate(codes):
            assert not is_duplicate(code, codes[:k]), (task, k)


def test_the_script_answers_every_possible_repair_request(bench, tmp_path):
    strategies, _ = bench
    task = strategies.TASKS[0]
    samples, repairs = strategies.pool(task)
    script = strategies.write_script(task, tmp_path / "s.jsonl", repair_rounds=1)
    lines = [json.loads(line) for line in script.read_text().splitlines()]
    # every sample, the pool's repairs in order, then code-less replies up to one repair per sample
    assert len(lines) == len(samples) + max(len(samples), len(repairs))
    assert all(line["role"] == "designer" for line in lines)
    assert samples[9].read_text(encoding="utf-8") in lines[9]["content"]
    assert repairs[0].read_text(encoding="utf-8") in lines[len(samples)]["content"]
    assert lines[-1]["content"] == strategies.NO_REPAIR and "```" not in lines[-1]["content"]


def test_the_calibration_table_counts_outcomes_and_rates(bench):
    _, calibration = bench
    row = {"task": "t", "accuracy": None, "message": "", "file": "f.py", "episodes": 9}
    rows = [
        {**row, "label": "good", "outcome": "passed"},
        {**row, "label": "good", "outcome": "rejected"},
        {**row, "label": "good", "outcome": "no verdict"},
        {**row, "label": "reward-hacking", "outcome": "passed"},
        {**row, "label": "reward-hacking", "outcome": "rejected"},
        {**row, "label": "reward-hacking", "outcome": "rejected"},
        {**row, "label": "weak", "outcome": "no verdict"},
    ]
    text = calibration.table(rows)
    good = next(line for line in text.splitlines() if line.startswith("t ") and " good " in line)
    assert good.split()[2:] == ["3", "2", "1", "1", "0", "1"]  # files, judged, passed, rejected, survival, no verdict
    assert "(good rejected / good judged):                 1/2 = 0.50" in text
    assert "1/3 = 0.33" in text  # hacking passed / judged
    assert "weak passed / weak judged:                                       0/0" in text


def test_the_calibration_leaves_a_rewards_own_episodes_out(bench, tmp_path, monkeypatch):
    strategies, calibration = bench
    task = strategies.TASKS[0]
    samples, _ = strategies.pool(task)
    archives = [
        calibration.Archive("run/1.1 (s1)", tmp_path / "a.npz", samples[0]),
        calibration.Archive("run2/1.1 (s1)", tmp_path / "b.npz", samples[0]),
        calibration.Archive("run/1.2 (s2)", tmp_path / "c.npz", samples[1]),
        calibration.Archive("random policy", tmp_path / "d.npz", None),
    ]
    seen = {}

    def fake_screen(spec, reward, out, files, executor, min_signal):  # records what the real screen would be given
        seen.update(files)
        seen["min_signal"] = min_signal
        raise calibration.RewardsmithError("stop here")

    monkeypatch.setattr(calibration, "screen", fake_screen)

    class Spec:
        name = task

    row = calibration.screen_file(Spec(), samples[0], archives, tmp_path, executor=None)
    assert set(seen) == {"run/1.2 (s2)", "random policy", "min_signal"}
    assert seen["min_signal"] == calibration.MIN_SIGNAL  # --min-signal 0 judges as halving's first cut does
    assert row["outcome"] == "no verdict" and row["policies"] == 2 and "stop here" in row["message"]
    assert calibration.pool_file_of("# rewardsmith candidate 1.1\n\n" + samples[3].read_text(), task) == samples[3]


def test_the_stay_alive_sweep_rejudges_recorded_returns(bench):
    """`--survival-sweep` re-judges the returns a calibration recorded: a constant-per-step weak reward passes only
    at a threshold below its spread, a good reward whose per-step mean follows the task is never rejected."""
    _, calibration = bench
    fitness = [0.0, 1.0, 2.0, 3.0, 4.0]
    episodes = lambda returns: [  # noqa: E731
        {"label": f"p{k}", "fitness": f, "return": r, "steps": 100} for k, (f, r) in enumerate(zip(fitness, returns))
    ]
    rows = [
        {"label": "weak", "outcome": "passed", "accuracy": 1.0, "details": episodes([100 + f for f in fitness])},
        {"label": "good", "outcome": "passed", "accuracy": 1.0, "details": episodes([100 * f for f in fitness])},
    ]
    text = calibration.sweep(rows, [0.001, 0.1]).splitlines()
    assert text[1].split() == ["0.001", "0/1", "1/1", "0/0"] and text[2].split() == ["0.1", "0/1", "0/1", "0/0"]
