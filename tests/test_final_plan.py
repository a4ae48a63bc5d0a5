"""The final retraining's plan: which final seeds the search already paid for (the winner's own full-budget training,
its rung checkpoint, and its second-seed training of a close call), and what the rest will cost."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from rewardsmith.config import RunConfig
from rewardsmith.run_folder.records import CandidateRecord
from rewardsmith.search.final import announce_final, final_plan, starting_point
from rewardsmith.search.spread import Repeat, SeedSpread


class Log:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def log(self, line: str) -> None:
        self.lines.append(line)


def repeated(tmp_path: Path, budget: int, candidate: str = "1.1", seeds: tuple[int, int] = (0, 1)) -> SeedSpread:
    """A spread holding one second-seed repeat, with the weights its training worker left."""
    weights = tmp_path / "second_seed" / str(budget) / "policy.safetensors"
    weights.parent.mkdir(parents=True, exist_ok=True)
    weights.write_bytes(b"weights")
    return SeedSpread([Repeat(candidate, budget, seeds, (1.0, 0.9), (0.1, 0.1))])


@pytest.fixture
def folder(tmp_path: Path) -> SimpleNamespace:
    return SimpleNamespace(cand_dir=lambda iteration, index: tmp_path)


def best(timesteps: int) -> CandidateRecord:
    return CandidateRecord(id="1.1", iteration=1, index=1, status="trained", timesteps=timesteps, wall_s=10.0)


def test_a_second_seed_training_at_the_full_budget_is_a_final_seed_not_trained_again(tmp_path, folder) -> None:
    config = RunConfig(task="t", timesteps=20000, final_timesteps=20000, final_seeds=3, seed=0)
    spread = repeated(tmp_path, 20000)
    plan = final_plan(folder, config, best(20000), spread)
    assert plan == {0: "reuse", 1: "reuse second seed", 2: "train"}
    assert starting_point(folder, best(20000), spread, 1, plan[1]) == (
        tmp_path / "second_seed" / "20000" / "policy.safetensors",
        20000,
    )
    log = Log()
    cost = announce_final(folder, config, best(20000), plan, log, workers=2, spread=spread)
    assert cost["steps"] == 20000  # only seed 2 trains
    assert "seed 1: reuse second seed" in log.lines[0]


def test_a_second_seed_training_at_a_rung_is_resumed(tmp_path, folder) -> None:
    (tmp_path / "checkpoint.safetensors").write_bytes(b"weights")
    config = RunConfig(task="t", timesteps=20000, final_timesteps=40000, final_seeds=2, seed=0)
    spread = repeated(tmp_path, 20000)
    plan = final_plan(folder, config, best(20000), spread)
    assert plan == {0: "resume", 1: "resume second seed"}
    assert starting_point(folder, best(20000), spread, 1, plan[1])[1] == 20000
    cost = announce_final(folder, config, best(20000), plan, Log(), workers=2, spread=spread)
    assert cost["steps"] == 2 * 20000  # each seed trains the missing half


@pytest.mark.parametrize(
    ("candidate", "seeds", "final_seeds", "weights"),
    [
        ("1.2", (0, 1), 2, True),  # another candidate's repeat
        ("1.1", (0, 5), 2, True),  # a seed the final retraining does not use
        ("1.1", (0, 1), 2, False),  # the weights are gone: nothing to reuse
    ],
)
def test_a_second_seed_is_reused_only_for_the_winner_on_a_final_seed_with_its_weights(
    tmp_path, folder, candidate, seeds, final_seeds, weights
) -> None:
    config = RunConfig(task="t", timesteps=20000, final_timesteps=20000, final_seeds=final_seeds, seed=0)
    spread = repeated(tmp_path, 20000, candidate, seeds)
    if not weights:
        (tmp_path / "second_seed" / "20000" / "policy.safetensors").unlink()
    plan = final_plan(folder, config, best(20000), spread)
    assert plan == {0: "reuse", 1: "train"}
    assert starting_point(folder, best(20000), spread, 1, plan[1]) == (None, 0)


def test_a_finalists_third_seed_at_the_full_budget_is_a_final_seed_too(tmp_path, folder) -> None:
    """--finalist-seeds 3: the winner's third seed (seed + 2, in third_seed/<budget>/) is reused like its second."""
    config = RunConfig(task="t", timesteps=20000, final_timesteps=20000, final_seeds=3, seed=0)
    spread = repeated(tmp_path, 20000)
    third = tmp_path / "third_seed" / "20000" / "policy.safetensors"
    third.parent.mkdir(parents=True)
    third.write_bytes(b"weights")
    spread.repeats = [spread.repeats[0].with_seed(2, 0.95, 0.1)]
    plan = final_plan(folder, config, best(20000), spread)
    assert plan == {0: "reuse", 1: "reuse second seed", 2: "reuse second seed"}
    assert starting_point(folder, best(20000), spread, 2, plan[2]) == (third, 20000)
    assert starting_point(folder, best(20000), spread, 1, plan[1])[0] == tmp_path / "second_seed" / "20000" / \
        "policy.safetensors"


def test_a_second_seed_trained_past_the_final_budget_is_not_that_policy(tmp_path, folder) -> None:
    config = RunConfig(task="t", timesteps=40000, final_timesteps=20000, final_seeds=2, seed=0)
    assert final_plan(folder, config, best(40000), repeated(tmp_path, 40000)) == {0: "train", 1: "train"}


@pytest.mark.slow
def test_the_final_retraining_measures_the_winners_second_seed_instead_of_training_it(tiny_spec, tmp_path) -> None:
    """A finished search whose winner was trained on seed 1 at the full budget (a close call's repeat): the final
    retraining on seeds 0 and 1 trains nothing; each seed is the search's own policy, measured again by the
    evaluation worker on fresh episodes, and that measurement is the result."""
    import json
    import shutil

    from typer.testing import CliRunner

    from rewardsmith.cli import app
    from rewardsmith.config import ResolvedConfig
    from rewardsmith.run_folder.folder import RunFolder
    from rewardsmith.run_folder.names import SPREAD_FILE
    from rewardsmith.search.final import retrain_best
    from rewardsmith.search.live import PlainProgress
    from rewardsmith.workers.executor import LocalExecutor

    spec = tiny_spec("inverted-double-pendulum-balance", timesteps=2048, eval_episodes=3)
    out = tmp_path / "run"
    script = Path(__file__).parent / "data" / "loop_e2e.jsonl"
    args = ["run", spec, "--iterations", "1", "--samples", "1", "--workers", "2", "--timesteps", "2048",
            "--final-timesteps", "2048", "--final-seeds", "0", "--strategy", "eureka", "--out", out,
            "--model", f"scripted:{script}"]  # fmt: skip
    result = CliRunner().invoke(app, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    folder = RunFolder(out)
    winner = next(r for r in folder.candidates() if r.status == "trained")
    cand = folder.cand_dir(winner.iteration, winner.index)
    (cand / "second_seed" / "2048").mkdir(parents=True)
    shutil.copy(cand / "policy.safetensors", cand / "second_seed" / "2048" / "policy.safetensors")
    SeedSpread.load(out / SPREAD_FILE).add(Repeat(winner.id, 2048, (0, 1), (winner.fitness, 0.0), (0.1, 0.1)))
    config = ResolvedConfig.model_validate({**folder.config().model_dump(), "final_seeds": 2})
    executor = LocalExecutor(2)
    try:
        final = retrain_best(folder, config, executor, PlainProgress())
    finally:
        executor.shutdown()
    assert final is not None
    started = next(e for e in folder.events() if e["event"] == "final_started")
    assert started["steps"] == 0 and started["plan"] == {"0": "reuse", "1": "reuse second seed"}
    assert sum(e["event"] == "training_started" for e in folder.events()) == 1  # the search's own, nothing since
    searched = json.loads((cand / "eval" / "evaluation.json").read_text())
    for row in final["seeds"]:
        again = json.loads((out / "final" / f"seed_{row['seed']}" / "eval" / "evaluation.json").read_text())
        assert row["fitness"] == again["fitness_mean"] and again["timesteps"] == 2048
        assert not set(again["seeds"]) & set(searched["seeds"])  # fresh episodes, not the ones that selected it
        assert not (out / "final" / f"seed_{row['seed']}" / "summary.json").exists()  # no training job ran there
