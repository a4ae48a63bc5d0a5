"""bench/converged_labels.py's label rule, and bench/replay_strategies.py's label sets and critic tie-break: the
recorded warnings reach the real pick through the replayed search's `Evidence`, keyed by candidate id."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

from rewardsmith.stages.screen import ScreenReport

BENCH = Path(__file__).resolve().parents[1] / "bench"
RANDOM = (0.0, 0.01)


def load(name: str):
    spec = importlib.util.spec_from_file_location(name, BENCH / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up while the file runs
    spec.loader.exec_module(module)
    return module


def rows(values: dict[str, list[float | None]], se: float = 0.01, budget: int = 400) -> list[dict]:
    return [
        {
            "file": f,
            "label": f.split("_")[1],
            "seed": 10 + k,
            "budgets": [budget],
            "fitness": [v],
            "se": [se if v is not None else None],
            "episodes": [20],
        }
        for f, vs in values.items()
        for k, v in enumerate(vs)
    ]


def test_the_rule_labels_good_what_the_best_does_not_beat_and_random_does() -> None:
    module = load("converged_labels")
    table = rows(
        {
            "a_weak_best.py": [1.0, 1.1],
            "b_good_close.py": [0.95, 1.0],  # 0.075 behind, within 2 se of the difference
            "c_good_far.py": [0.5, 0.52],  # far behind the best
            "d_weak_failed.py": [1.2, None],  # one training failed: not good, whatever the other says
            "e_good_random.py": [0.0, 0.01],  # no better than the random policy
        }
    )
    found = module.verdicts(table, RANDOM)
    assert {f: v.label for f, v in found.items()} == {
        "a_weak_best.py": "good",
        "b_good_close.py": "good",
        "c_good_far.py": "not good",
        "d_weak_failed.py": "not good",
        "e_good_random.py": "not good",
    }
    assert found["d_weak_failed.py"].why == "a training failed"
    assert found["c_good_far.py"].why.startswith("behind the best")


def test_seeds_that_happen_to_agree_get_the_pooled_spread() -> None:
    """b's two seeds agree exactly and its episodes are precise: on its own spread it would be distinguishably
    behind the best; the pool's spread (a's and c's seeds disagree) keeps it indistinguishable."""
    module = load("converged_labels")
    table = rows({"a_good_best.py": [1.2, 1.2], "b_good_same.py": [1.0, 1.0], "c_weak_x.py": [0.3, 0.9]}, se=0.001)
    found = module.verdicts(table, RANDOM)
    assert found["b_good_same.py"].label == "good"
    assert found["b_good_same.py"].se == pytest.approx((0.18 / 3 / 2) ** 0.5)
    # a stricter bar (z 0.5) would call it behind: the rule's z is what decides, not the seeds' agreement
    assert module.verdicts(table, RANDOM, z=0.5)["b_good_same.py"].label == "not good"


def test_a_reward_that_scores_near_the_best_but_never_succeeds_is_not_good_once_rows_record_success() -> None:
    """Mountaincar's swing-forever rewards: fitness within the bar of the best, success 0 where the best's is 1. The
    success clause holds only when every row records its success rate; older tables keep rules (1) and (2)."""
    module = load("converged_labels")
    table = rows({"a_good_best.py": [1.0, 1.0], "b_hack_swing.py": [0.87, 0.92], "c_good_close.py": [0.97, 1.0]},
                 se=0.06)
    assert all(v.label == "good" for v in module.verdicts(table, RANDOM).values())
    success = {"a_good_best.py": 1.0, "b_hack_swing.py": 0.0, "c_good_close.py": 0.95}
    with_success = [{**r, "success": [success[r["file"]]]} for r in table]
    found = module.verdicts(with_success, RANDOM)
    assert found["b_hack_swing.py"].label == "not good"
    assert found["b_hack_swing.py"].why.startswith("succeeds less than the best by 1.00")
    assert found["a_good_best.py"].label == found["c_good_close.py"].label == "good"
    partial = [dict(r) for r in with_success]
    partial[0].pop("success")  # one row without the column: no success clause for the table
    assert module.verdicts(partial, RANDOM)["b_hack_swing.py"].label == "good"


def test_a_pool_that_learned_nothing_has_no_good_reward() -> None:
    module = load("converged_labels")
    table = rows({"a_good_x.py": [0.01, 0.0], "b_good_y.py": [0.0, -0.01]})
    found = module.verdicts(table, RANDOM)
    assert {v.label for v in found.values()} == {"not good"} and found["a_good_x.py"].why.startswith("within")


def write_table(path: Path, fitness: dict[str, float], se: float = 0.05) -> None:
    rows = [
        {"file": f, "label": f.split("_")[1], "seed": 0, "budgets": [400], "fitness": [v], "se": [se], "episodes": [20]}
        for f, v in fitness.items()
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def test_the_critic_warning_breaks_a_tie_in_the_replayed_pick_and_never_a_clear_lead(tmp_path: Path) -> None:
    replay = load("replay_strategies")
    warned = {"a_weak_touch.py": "critic: the total is constant over the sampled states"}
    critic = tmp_path / "critic.jsonl"
    critic.write_text(
        json.dumps({"file": "a_weak_touch.py", "accepted": True, "tie_break": warned["a_weak_touch.py"]})
        + "\n"
        + json.dumps({"file": "b_good_x.py", "accepted": True, "tie_break": None})
        + "\n"
        + json.dumps({"file": "c_weak_low.py", "accepted": False, "tie_break": "rejected, never trained"})
        + "\n"
    )
    assert replay.critic_warnings(critic) == warned
    path = tmp_path / "toy.jsonl"
    write_table(path, {"a_weak_touch.py": 0.50, "b_good_x.py": 0.48, "c_weak_low.py": 0.1})
    plain = replay.Table.load(path)
    table = replay.Table.load(path, warnings=replay.critic_warnings(critic))
    with_tie_break = replay.Settings(tie_break=True)
    # the warned reward leads within noise: without the warnings (or with the tie-break off) it is returned
    assert replay.replay(plain, 0, [400], "lcb", with_tie_break).file == "a_weak_touch.py"
    assert replay.replay(table, 0, [400], "lcb").file == "a_weak_touch.py"
    outcome = replay.replay(table, 0, [400], "lcb", with_tie_break)
    assert outcome.file == "b_good_x.py" and "the critic's warning broke the tie" in outcome.trace[-1]
    assert replay.replay(table, 0, [400], "mean", with_tie_break).file == "a_weak_touch.py"  # Eureka's rule: none
    # a distinguishable lead is never overturned
    write_table(path, {"a_weak_touch.py": 0.9, "b_good_x.py": 0.48, "c_weak_low.py": 0.1})
    clear = replay.Table.load(path, warnings=warned)
    assert replay.replay(clear, 0, [400], "lcb", with_tie_break).file == "a_weak_touch.py"


def test_label_sets_add_the_converged_labels_where_recorded(tmp_path: Path) -> None:
    replay = load("replay_strategies")
    write_table(tmp_path / "reacher-reach.jsonl", {"a_weak_touch.py": 0.5, "b_good_x.py": 0.4})
    table = replay.Table.load(tmp_path / "reacher-reach.jsonl")
    assert replay.label_sets(table, "both", tmp_path) == {"hand": {"a_weak_touch.py": "weak", "b_good_x.py": "good"}}
    with pytest.raises(SystemExit, match="no converged labels"):
        replay.label_sets(table, "converged", tmp_path)
    (tmp_path / "converged").mkdir()
    # converged (reacher's random policy is about -0.16): the "weak" reward is the best, the "good" one far behind
    converged = rows({"a_weak_touch.py": [-0.10, -0.11], "b_good_x.py": [-0.30, -0.31]}, budget=65536)
    (tmp_path / "converged" / "reacher-reach.jsonl").write_text("".join(json.dumps(r) + "\n" for r in converged))
    with pytest.raises(SystemExit, match="no pinned random policy"):
        replay.label_sets(table, "both", tmp_path)
    (tmp_path / "converged" / "reacher-reach.random.json").write_text(json.dumps({"random": [-0.16, 0.01]}))
    sets = replay.label_sets(table, "both", tmp_path)
    assert sets["converged"] == {"a_weak_touch.py": "good", "b_good_x.py": "not good"}
    assert set(replay.label_sets(table, "converged", tmp_path)) == {"converged"}
    with pytest.raises(SystemExit, match="no converged labels"):  # another label folder (--converged)
        replay.label_sets(table, "converged", tmp_path, "converged_other")
    (tmp_path / "converged" / "reacher-reach.jsonl").write_text(json.dumps(converged[0]) + "\n")
    with pytest.raises(SystemExit, match="no converged label for b_good_x.py"):
        replay.label_sets(table, "both", tmp_path)


def test_converged_labels_with_no_good_reward_are_left_out_not_counted_as_misses(tmp_path: Path, capsys) -> None:
    replay = load("replay_strategies")
    write_table(tmp_path / "reacher-reach.jsonl", {"a_weak_touch.py": 0.5, "b_good_x.py": 0.4})
    table = replay.Table.load(tmp_path / "reacher-reach.jsonl")
    (tmp_path / "converged").mkdir()
    # both rewards stay at the level of the pinned random policy, so neither is good
    level = -0.16
    flat = rows({"a_weak_touch.py": [level, level - 0.01], "b_good_x.py": [level, level + 0.01]}, budget=65536)
    (tmp_path / "converged" / "reacher-reach.jsonl").write_text("".join(json.dumps(r) + "\n" for r in flat))
    (tmp_path / "converged" / "reacher-reach.random.json").write_text(json.dumps({"random": [level, 0.01]}))
    assert replay.label_sets(table, "both", tmp_path) == {"hand": {"a_weak_touch.py": "weak", "b_good_x.py": "good"}}
    assert "no reward is good under the converged labels" in capsys.readouterr().out
    with pytest.raises(SystemExit, match="a hit rate against them is undefined"):
        replay.label_sets(table, "converged", tmp_path)


SHIPPED = sorted((BENCH / "replay_tables").glob("**/converged*/*.jsonl"))


@pytest.mark.parametrize("table", SHIPPED, ids=lambda p: str(p.relative_to(BENCH / "replay_tables")))
def test_each_shipped_label_set_has_its_random_policy_pinned_and_the_specs_record_gives_the_same_labels(table) -> None:
    """The labels rest on the random policy pinned beside the table; a re-calibration of the spec that would move
    any of them fails here, so it is re-pinned (`converged_labels.py --pin`, which prints what moved) on purpose."""
    module = load("converged_labels")
    rows = module.load_rows(table)
    pinned = module.verdicts(rows, module.pinned_random(table))
    current = module.verdicts(rows, module.random_reference(table.stem))
    assert {f: v.label for f, v in pinned.items()} == {f: v.label for f, v in current.items()}


def test_pinning_reports_the_labels_a_new_random_reference_moves(tmp_path: Path, monkeypatch) -> None:
    module = load("converged_labels")
    table = tmp_path / "reacher-reach.jsonl"
    table.write_text("".join(json.dumps(r) + "\n" for r in rows({"a_good_x.py": [0.30, 0.31], "b_good_y.py": [0.29, 0.30]}, se=0.005)))
    monkeypatch.setattr(module, "random_reference", lambda task: (0.0, 0.01))
    assert module.pin(table)[1:] == ["no label moved"]
    assert module.labels(table) == {"a_good_x.py": "good", "b_good_y.py": "good"}
    monkeypatch.setattr(module, "random_reference", lambda task: (0.29, 0.005))  # b is no longer clear of random
    assert module.pin(table)[1:] == ["b_good_y.py: good -> not good"]
    assert module.pinned_random(table) == (0.29, 0.005)


def test_the_recorded_screen_reorders_the_first_cut_and_rechecks_the_critics_warning(tmp_path: Path) -> None:
    """--screen: each reward's recorded first-cut verdict (and per-episode returns) goes to the real halving's first
    cut; a warned reward whose per-step return varied there loses the critic's warning, as in a run."""
    replay = load("replay_strategies")
    path = tmp_path / "toy.jsonl"
    fitness = {"a_weak_touch.py": 0.5, "b_good_x.py": 0.48, "c_weak_low.py": 0.1}
    path.write_text(
        "".join(
            json.dumps({"file": f, "label": f.split("_")[1], "seed": seed, "budgets": [100, 400], "fitness": [v, v],
                        "se": [0.05, 0.05], "episodes": [20, 20]}) + "\n"
            for f, v in fitness.items()
            for seed in (0, 1)
        )
    )  # fmt: skip
    fired = [{"steps": 50, "return": v} for v in (0.0, 0.0, 2.0, 0.0, 1.0, 0.0)]
    screen = tmp_path / "screen.jsonl"
    screen.write_text(
        "".join(
            json.dumps({"file": f, "outcome": o, "accuracy": 0.7, "episodes": 6, "message": "m", "details": fired}) + "\n"
            for f, o in (("a_weak_touch.py", "passed"), ("b_good_x.py", "passed"), ("c_weak_low.py", "no verdict"))
        )
    )  # fmt: skip
    screens = replay.recorded_screens(screen)
    assert set(screens) == {"a_weak_touch.py", "b_good_x.py"} and screens["a_weak_touch.py"].passed
    warned = {"a_weak_touch.py": "critic: the total is constant over the sampled states"}
    budgets = [100, 400]

    def returned(settings, **tables) -> str:
        return replay.replay(replay.Table.load(path, **tables), 0, budgets, "lcb", settings).file

    # the critic's warning breaks the tie without the screen; the screen saw the reward vary, so it no longer does
    assert returned(replay.Settings(tie_break=True), warnings=warned) == "b_good_x.py"
    assert returned(replay.Settings(tie_break=True, screen=True), warnings=warned, screens=screens) == "a_weak_touch.py"
    screens["a_weak_touch.py"].passed = False  # a screen that rejects it puts it behind at the first cut
    assert returned(replay.Settings(screen=True), screens=screens) == "b_good_x.py"


def test_a_first_rung_screens_with_the_verdicts_recorded_at_that_rung_or_not_at_all(tmp_path: Path) -> None:
    """--first with --screen: the family's first rung uses `screen/<task>.jsonl`, another first rung the file
    recorded at its steps, and a first rung with no recording is replayed without a screen and says so. A run moves
    this pool's first cut past its blind 1/16 rung to 1/4, without a screen; `--first 0.25` still replays 1/4 with
    the screen recorded there."""
    replay = load("replay_strategies")
    path = tmp_path / "mountaincar-reach-flag.jsonl"  # classic control: the family's first rung is 1/16
    budgets = [6250, 12500, 25000, 100000]
    fitness = {"a_good_x.py": 0.9, "b_weak_y.py": 0.8, "c_good_z.py": 0.85}
    path.write_text(
        "".join(
            json.dumps({"file": f, "label": f.split("_")[1], "seed": s, "budgets": budgets, "fitness": [v] * 4,
                        "se": [0.05] * 4, "episodes": [10] * 4}) + "\n"
            for f, v in fitness.items()
            for s in (0, 1)
        )
    )  # fmt: skip
    verdict = ScreenReport(False, 0.3, None, 10, "rejected")
    table = replay.Table.load(path, screens={"a_good_x.py": verdict})
    table.screens_at[25000] = {"b_weak_y.py": verdict}
    lines, _ = replay.pool_report(table, 2, [0.0625, 0.125, 0.25], gate=False)  # as runs did before the gate
    text = "\n".join(lines)
    assert "default first 0.0625 + screen" in text and "default first 0.25 + screen" in text
    assert "default first 0.125 + screen" not in text
    assert "default first 0.125: no screen recorded at 12,500 steps, so not replayed with one" in text
    gated = "\n".join(replay.pool_report(table, 2, [None, 0.0625, 0.25])[0])  # its calibration: 6,250 steps blind
    row = "default first 0.25 (recorded) rungs [25000, 100000]:"
    assert any(" ".join(x.split(" hit")[0].split()) == row for x in gated.splitlines())
    assert "default first 0.25 (recorded): no screen at its first cut in a run" in gated
    assert "default first 0.0625: no screen at its first cut in a run" in gated
    assert "default first 0.0625 + screen" not in gated and "default first 0.25 + screen" in gated


def test_the_recorded_default_is_what_a_run_does_and_the_comparison_reads_it(tmp_path: Path) -> None:
    """--ablations --tie-break --label-subsets: the recorded default takes the first rung a run takes (moved past a
    blind one on mountaincar-reach-flag, the family's on acrobot-swing-up, which sees); round 27's candidate (what a
    run does less the clear winner's second seed) has its row on every pool."""
    replay = load("replay_strategies")
    pools = {  # task: (its rungs' budgets, the run's first rung: its calibration's -8.3 / +4.2 se at 1/16)
        "mountaincar-reach-flag": ([6250, 25000, 100000], "0.25"),
        "acrobot-swing-up": ([3125, 12500, 50000], "0.0625"),
    }
    for task, (budgets, first) in pools.items():
        path = tmp_path / f"{task}.jsonl"
        path.write_text(
            "".join(
                json.dumps({"file": f, "label": f.split("_")[1], "seed": s, "budgets": budgets, "fitness": [v] * 3,
                            "se": [0.05] * 3, "episodes": [10] * 3}) + "\n"
                for f, v in {"a_good_x.py": 0.9, "b_weak_y.py": 0.8}.items()
                for s in (0, 1)
            )
        )  # fmt: skip
        text = "\n".join(replay.pool_report(replay.Table.load(path), 2, [None], ablations=True, tie_break=True)[0])
        assert f"default first {first} (recorded) + tie-break, no clear-winner seed" in text, task
        rungs = budgets[1:] if first == "0.25" else budgets
        row = f"default first {first} (recorded) rungs {rungs}:"
        assert any(" ".join(x.split(" hit")[0].split()) == row for x in text.splitlines()), task
        assert "candidate: no middle rung" not in text  # decided in round 31 (not adopted)


def test_label_seed_subsets_show_a_reward_that_collapsed_on_one_seed(tmp_path: Path) -> None:
    """b succeeds on three label seeds and collapses on one (seed 11): the labels of the pairs without seed 11 call
    it good, the pairs with it do not; the gap score moves with it but has no bar to cross."""
    module = load("converged_labels")
    table = tmp_path / "reacher-reach.jsonl"
    values = {"a_good_best.py": [1.0, 1.0, 0.98, 1.0], "b_good_collapse.py": [0.99, 0.1, 0.985, 0.995],
              "c_weak_x.py": [0.2, 0.21, 0.19, 0.2]}
    table.write_text("".join(json.dumps(r) + "\n" for r in rows(values, se=0.01)))
    (tmp_path / "reacher-reach.random.json").write_text(json.dumps({"random": [0.0, 0.01]}))
    subsets = module.subset_labels(table, 2)
    assert len(subsets) == 6 and all(len(s) == 2 for s in subsets)
    for seeds, of in subsets.items():
        assert of["b_good_collapse.py"] == ("not good" if 11 in seeds else "good"), seeds
        assert of["a_good_best.py"] == "good" and of["c_weak_x.py"] == "not good"
    assert module.labels(table)["b_good_collapse.py"] == "good"  # all four: the pooled spread keeps it in
    scores = module.gap_scores(table)
    assert scores["a_good_best.py"] == pytest.approx(1.0)
    assert scores["b_good_collapse.py"] == pytest.approx(3.07 / 4 / 0.995)
    assert module.gap_scores(table, (10, 12))["b_good_collapse.py"] == pytest.approx(1.975 / 1.98)
    with pytest.raises(SystemExit, match="5-seed subsets of 4"):
        module.subset_labels(table, 5)


def test_subset_hits_give_each_strategys_range_and_its_difference_from_eureka_under_the_same_labels() -> None:
    replay = load("replay_strategies")

    def picks(*files: str) -> list:
        return [replay.Outcome(file=f, label="", steps=400, budgets=[400], trace=[]) for f in files]

    seeds = replay.LabelSeeds(
        labels={(10, 11): {"a.py": "good", "b.py": "not good"}, (10, 12): {"a.py": "good", "b.py": "good"},
                (11, 12): {"a.py": "not good", "b.py": "not good"}},
        scores={(10, 11): {"a.py": 1.0, "b.py": 0.5}, (10, 12): {"a.py": 1.0, "b.py": 0.9},
                (11, 12): {"a.py": 1.0, "b.py": 0.0}},
    )
    eureka, default = picks("a.py", "a.py"), picks("a.py", "b.py")
    line = replay.subset_hits(default, seeds, eureka)
    assert "(3 sets, 1 with no good reward left out of the hit rate)" in line
    assert "hit 0.50 to 1.00 (mean 0.75)" in line and "score 0.50 to 0.95" in line
    assert "minus Eureka's: score -0.50 to -0.05, hit -0.50 to +0.00" in line
    assert "minus Eureka" not in replay.subset_hits(eureka, seeds, eureka)
    # a candidate against the recorded default, per subset, to three places (the adoption test reads its low end)
    candidate = picks("a.py", "a.py")
    assert "minus the recorded default's: score +0.050 to +0.500" in replay.subset_hits(candidate, seeds, None, default)
    assert "recorded default" not in replay.subset_hits(default, seeds, None, default)
