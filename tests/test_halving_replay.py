"""bench/replay_strategies.py: its table-backed trainer drives the real successive halving and pick with the
recorded trainings, seed by seed, and its second-seed repeats use another recorded seed."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

from rewardsmith.search.evidence import Evidence
from rewardsmith.search.halving import successive_halving
from rewardsmith.search.spread import SeedSpread

BENCH = Path(__file__).resolve().parents[1] / "bench" / "replay_strategies.py"


def script():
    spec = importlib.util.spec_from_file_location("replay_strategies", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up while the file runs
    spec.loader.exec_module(module)
    return module


BUDGETS = [100, 200, 400]
# reward -> seed -> fitness at each budget; on seed 0, "late" looks bad early and wins at the full budget
CURVES = {
    "a_good_late.py": {0: [0.1, 0.2, 0.9], 1: [0.1, 0.2, 0.95]},
    "b_good_steady.py": {0: [0.5, 0.6, 0.7], 1: [0.5, 0.6, 0.72]},
    "c_weak_early.py": {0: [0.6, 0.62, 0.3], 1: [0.55, 0.6, 0.31]},
    "d_weak_flat.py": {0: [0.2, 0.21, 0.22], 1: [0.2, 0.2, 0.2]},
    "e_weak_low.py": {0: [0.0, 0.01, 0.02], 1: [0.0, 0.0, 0.01]},
}


def table(module, tmp_path: Path, seeds=(0, 1)):
    rows = [
        {
            "file": f,
            "label": f.split("_")[1],
            "seed": s,
            "budgets": BUDGETS,
            "fitness": curve,
            "se": [0.001] * 3,
            "episodes": [5, 5, 20],
        }
        for f, by_seed in CURVES.items()
        for s, curve in by_seed.items()
        if s in seeds
    ]
    path = tmp_path / "toy.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return module.Table.load(path)


def test_the_table_trainer_drives_halving_with_the_recorded_trainings(tmp_path: Path) -> None:
    module = script()
    toy = table(module, tmp_path, seeds=(0,))
    trainer = module.TableTrainer(toy, search_seed=3)
    rungs = successive_halving(trainer.records(), trainer.train, BUDGETS, keep=0.25)
    by_file = {cid: f for cid, f in trainer.file.items()}
    # every rung's fitness is the table's value for that reward on its (only) seed at that rung's budget
    for rung in rungs:
        k = BUDGETS.index(rung.timesteps)
        assert {by_file[r.id]: r.fitness for r in rung.trained} == {
            by_file[r.id]: CURVES[by_file[r.id]][0][k] for r in rung.trained
        }
    # rung 1 trains all five; the top two by fitness (c 0.6, b 0.5) go on; the late bloomer is cut on seed 0
    assert len(rungs[0].trained) == 5 and rungs[0].steps == 500
    assert sorted(by_file[c] for c in rungs[0].promoted) == ["b_good_steady.py", "c_weak_early.py"]
    # resumed survivors pay only their new steps
    assert rungs[1].steps == 2 * 100 and rungs[2].timesteps == 400
    outcome = module.replay(toy, 3, BUDGETS, "lcb")
    assert outcome.file == "b_good_steady.py" and outcome.label == "good"
    assert module.replay(toy, 3, [400], "mean").file == "a_good_late.py"  # Eureka trains all fully
    assert module.replay(toy, 3, [400], "mean").steps == 5 * 400


def test_search_seeds_draw_recorded_seeds_and_repeats_use_the_other(tmp_path: Path) -> None:
    module = script()
    toy = table(module, tmp_path)
    import replay_table  # bench/ is on sys.path once the script is loaded

    draws = {replay_table.training_seed(s, "a_good_late.py", [0, 1]) for s in range(20)}
    assert draws == {0, 1}  # both recorded trainings are used across search seeds
    draw = replay_table.training_seed
    assert draw(7, "a_good_late.py", [0, 1]) == draw(7, "a_good_late.py", [1, 0])
    evidence = Evidence(SeedSpread(), {})
    trainer = module.TableTrainer(toy, search_seed=5, evidence=evidence)
    record = trainer.train(trainer.records()[0], 200, False)
    first = trainer.seed[record.id]
    assert trainer.repeat([record], 200) == 200
    repeat = evidence.spread.repeat_of(record.id, 200) if evidence.spread else None
    assert repeat is not None and repeat.seeds == (first, 1 - first)
    assert repeat.fitness == (CURVES["a_good_late.py"][first][1], CURVES["a_good_late.py"][1 - first][1])


def test_the_steps_are_broken_down_by_where_they_went(tmp_path: Path) -> None:
    """The weak early leader's full-budget training fails, so the steady reward is alone at the last rung and the best
    candidate stopped at the first rung is trained on to meet it: every step lands in exactly one category."""
    module = script()
    broken = {**CURVES, "c_weak_early.py": {0: [0.6, 0.62, None]}}
    path = tmp_path / "broken.jsonl"
    path.write_text(
        "".join(
            json.dumps(
                {"file": f, "label": f.split("_")[1], "seed": 0, "budgets": BUDGETS, "fitness": c[0], "se": [0.001] * 3}
            )
            + "\n"
            for f, c in broken.items()
        )
    )
    outcome = module.replay(module.Table.load(path), 3, BUDGETS, "lcb")
    # rung 1: 5 x 100; rung 2: b and c resume to 200; rung 3: b to 400 (c fails); d (best stopped) from 100 to 400
    assert outcome.spent == {
        "first rung": 500,
        "later rungs": 200 + 200,
        "revival": 300,
        "repeats below the last rung": 0,
        "repeats at the last rung": 0,
    }
    assert sum(outcome.spent.values()) == outcome.steps and outcome.file == "b_good_steady.py"
    assert outcome.last_held == 2 and outcome.before_last == ("weak", True)


def test_the_fewest_steps_the_rungs_allow() -> None:
    """15 candidates at 1/8, the top quarter (4) to 1/4, two to the full budget: 0.258 of training all 15 fully."""
    steps = script().fewest_steps(15, [2048, 4096, 16384], 0.25)
    assert steps == 15 * 2048 + 4 * 2048 + 2 * 12288 and round(steps / (15 * 16384), 3) == 0.258


def test_seed_means_pick_on_the_mean_of_k_recorded_trainings(tmp_path: Path) -> None:
    """`--seed-means`: with k = 1 a draw of one seed picks by that seed alone; with k = 2 (every recorded seed) the
    pick is the best mean, every draw the same."""
    module = script()
    rows = [
        {"file": f, "label": "good" if f.startswith("a") else "weak", "seed": s, "budgets": [100], "fitness": [v],
         "se": [0.0], "episodes": [5]}
        for f, values in {"a_good.py": (1.0, 0.2), "b_weak.py": (0.5, 0.5)}.items()
        for s, v in enumerate(values)
    ]  # fmt: skip
    path = tmp_path / "toy.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    line = module.seed_mean_hits(module.Table.load(path), {"a_good.py": "good", "b_weak.py": "weak"}, 400)
    one, two = (float(x.split()[1]) for x in line.split(": ")[1].split(", "))
    assert 0.4 < one < 0.6 and two == 1.0, line  # a_good leads on seed 0 only; its mean 0.6 beats 0.5


def test_a_third_seed_in_the_replay_is_the_next_recorded_one_not_yet_used(tmp_path: Path) -> None:
    script()
    import replay_table  # bench/ is on sys.path once the script is loaded

    assert replay_table.next_seed([2], [0, 1, 2, 3]) == 3 and replay_table.next_seed([2, 3], [0, 1, 2, 3]) == 0
    assert replay_table.next_seed([1, 0], [0, 1]) is None  # every recorded seed used: no third
    module = script()
    evidence = Evidence(SeedSpread(), {})
    trainer = module.TableTrainer(table(module, tmp_path), search_seed=5, evidence=evidence)
    record = trainer.train(trainer.records()[0], 200, False)
    assert trainer.repeat([record], 200, seeds=3) == 200  # a second seed first: one more per call
    assert trainer.repeat([record], 200, seeds=3) == 0  # two seeds recorded: no third to draw
    repeat = evidence.spread.repeat_of(record.id, 200)
    assert repeat is not None and len(repeat.seeds) == 2
