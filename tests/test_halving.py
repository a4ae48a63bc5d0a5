"""Successive halving (rewardsmith.search.halving): the budget is spent as configured, survivors resume from
their own checkpoint, falling curves stop; the real rung trainer resumes a sandboxed worker from its weights."""

from __future__ import annotations

import threading

import pytest

from rewardsmith.run_folder.records import CandidateRecord
from rewardsmith.search.halving import is_falling, rung_budgets, rung_episodes, successive_halving, survivors


def designed(n: int) -> list[CandidateRecord]:
    return [CandidateRecord(id=f"1.{j}", iteration=1, index=j, status="designed") for j in range(1, n + 1)]


class Trainer:
    """A deterministic stand-in for the sandboxed trainer: fitness grows with steps at a per-candidate rate.
    Records every call so the test sees exactly which steps each rung paid for."""

    def __init__(self, rates: dict[str, float], plateau: dict[str, int] | None = None) -> None:
        self.rates, self.plateau = rates, plateau or {}
        self.calls: list[tuple[str, int, bool, int]] = []
        self.lock = threading.Lock()

    def __call__(self, record: CandidateRecord, timesteps: int, resume: bool) -> CandidateRecord:
        with self.lock:
            self.calls.append((record.id, timesteps, resume, record.timesteps))
        steps = min(timesteps, self.plateau.get(record.id, timesteps))
        return record.model_copy(
            update=dict(
                status="trained",
                fitness=self.rates[record.id] * steps,
                fitness_se=0.01,
                episodes=5,
                timesteps=timesteps,
            )
        )


def test_rung_budgets_and_survivors():
    assert rung_budgets(8000, [0.125, 0.25, 0.5, 1.0]) == [1000, 2000, 4000, 8000]
    assert rung_budgets(8000, [0.01, 0.02, 1.0], minimum=2048) == [2048, 8000]  # merged below one rollout
    assert [survivors(n, 0.5) for n in (1, 2, 3, 4, 5)] == [1, 2, 2, 2, 3]
    assert [survivors(n, 0.25) for n in (1, 2, 4, 14, 16)] == [1, 2, 2, 4, 4]  # at least two go on where there are two
    assert survivors(6, 1 / 3) == 2


def test_evaluations_are_sized_to_the_rung():
    assert [rung_episodes(20, t, 16384) for t in (1024, 4096, 8192, 16384)] == [5, 5, 10, 20]
    assert rung_episodes(3, 1024, 16384) == 3  # never more than the spec asks for
    assert rung_episodes(20, 20000, 16384) == 20


def test_halving_spends_the_budget_as_configured_and_resumes():
    records = designed(8)
    # 1.2 and 1.3 lead, too close to tell apart (800 vs 799.998 at 200 steps, standard errors 0.01)
    trainer = Trainer({f"1.{i}": rate for i, rate in enumerate((1.0, 4.0, 3.99999, 2.0, 0.5, 1.5, 2.5, 0.2), 1)})
    rungs = successive_halving(records, trainer, [100, 200, 400], keep=0.25, parallel=2)
    by_rung = [sorted((c[0], c[1], c[2]) for c in trainer.calls if c[1] == b) for b in (100, 200, 400)]
    assert by_rung[0] == [(f"1.{i}", 100, False) for i in range(1, 9)]
    assert by_rung[1] == [("1.2", 200, True), ("1.3", 200, True)]  # the top quarter resumes, not restarts
    assert by_rung[2] == [("1.2", 400, True), ("1.3", 400, True)]  # at least two reach the full budget
    # resumed rungs start from what the candidate already trained
    assert all(done == {200: 100, 400: 200}[b] for _, b, resume, done in trainer.calls if resume)
    assert [r.steps for r in rungs] == [800, 200, 400]  # 1,400 env steps in all, vs 3,200 for 8 full trainings
    assert rungs[0].promoted == ["1.2", "1.3"] and set(rungs[0].stopped.values()) == {"halved"}
    assert rungs[-1].trained[0].timesteps == 400


def test_the_second_survivor_stops_behind_a_distinguishable_leader_but_the_last_rung_holds_two():
    trainer = Trainer({f"1.{i}": rate for i, rate in enumerate((1.0, 4.0, 3.0, 2.0, 0.5, 1.5, 2.5, 0.2), 1)})
    rungs = successive_halving(designed(8), trainer, [100, 200, 400, 800], keep=0.25)
    assert rungs[0].promoted == ["1.2", "1.3"]  # keep 1/4 of 8: two go on by the fraction itself
    assert rungs[1].promoted == ["1.2"] and rungs[1].stopped == {"1.3": "behind a distinguishable leader"}
    # the cut into the last rung keeps two however clear the lead (issue 23: no unexamined lone survivor)
    three = successive_halving(designed(8), Trainer(trainer.rates), [100, 200, 400], keep=0.25)
    assert three[1].promoted == ["1.2", "1.3"] and not three[1].stopped
    assert [r.steps for r in three] == [800, 200, 400]


def test_a_lone_survivor_is_compared_with_the_best_stopped_candidate_at_equal_steps():
    """1.2 leads clearly at 200 steps and goes on alone, but stops improving; 1.3, stopped at 200, is trained on from
    its checkpoint to the last budget and is the better reward there."""
    from rewardsmith.search.selection import pick

    trainer = Trainer(
        {f"1.{i}": rate for i, rate in enumerate((1.0, 4.0, 3.0, 2.0, 0.5, 1.5, 2.5, 0.2), 1)}, plateau={"1.2": 200}
    )
    rungs = successive_halving(designed(8), trainer, [100, 200, 400, 800], keep=0.25, stop_flat=False)
    last = rungs[-1]
    assert rungs[1].promoted == ["1.2"] and rungs[2].promoted == ["1.2"]
    assert last.revived == "1.3" and ("1.3", 800, True, 200) in trainer.calls  # resumed from its 200-step checkpoint
    assert last.steps == 400 + 600
    assert pick(last.trained).winner == "1.3"
    assert last.as_dict()["revived"] == "1.3"


def test_a_flat_runner_up_goes_on_when_the_leader_is_not_distinguishable_from_it():
    # 1.2 stopped improving after 100 steps but is within noise of the leader 1.1, so the flat-curve rule does not
    # leave 1.1 alone at the next rung
    rates, plateau = {"1.1": 4.0, "1.2": 3.99}, {"1.2": 100}
    noisy = Trainer(rates, plateau=plateau)

    def train(record, timesteps, resume):  # a standard error of 500 hides the plateau (399 vs 800)
        return noisy(record, timesteps, resume).model_copy(update={"fitness_se": 500.0})

    rungs = successive_halving(designed(2), train, [100, 200, 400, 800], keep=0.5)
    assert rungs[1].promoted == ["1.1", "1.2"] and "1.2" not in rungs[1].stopped
    precise = successive_halving(designed(2), Trainer(rates, plateau=plateau), [100, 200, 400, 800], keep=0.5)
    assert precise[0].stopped["1.2"] == "behind a distinguishable leader" and precise[1].promoted == ["1.1"]
    assert precise[-1].revived == "1.2"  # compared with the lone survivor at the last rung all the same


def test_candidates_within_noise_of_the_cut_line_go_on_up_to_a_cap():
    """Eight candidates that all lie within noise of each other: the top quarter goes on by the fraction, and
    `MAX_KEPT_ON_NOISE` more that cannot be told from the cut line; with precise numbers only the fraction."""
    from rewardsmith.search.halving import MAX_KEPT_ON_NOISE

    rates = {f"1.{i}": rate for i, rate in enumerate((1.0, 4.0, 3.99, 2.0, 0.5, 1.5, 2.5, 0.2), 1)}

    def noisy(record, timesteps, resume):
        return Trainer(rates)(record, timesteps, resume).model_copy(update={"fitness_se": 500.0})

    rungs = successive_halving(designed(8), noisy, [100, 200], keep=0.25)
    assert rungs[0].promoted == ["1.2", "1.3", "1.7", "1.4"] and len(rungs[0].promoted) == 2 + MAX_KEPT_ON_NOISE
    assert rungs[0].noise_kept == ["1.7", "1.4"] and rungs[0].stopped["1.6"] == "halved"
    assert rungs[0].as_dict()["candidates"][6]["next"] == "promoted (within noise of the cut line)"
    assert successive_halving(designed(8), Trainer(rates), [100, 200], keep=0.25)[0].promoted == ["1.2", "1.3"]
    # the cap is a parameter (bench/replay_strategies.py --ablations replays the default with 1 and with 0)
    one = successive_halving(designed(8), noisy, [100, 200], keep=0.25, kept_on_noise=1)
    assert one[0].promoted == ["1.2", "1.3", "1.7"] and one[0].stopped["1.4"] == "halved"
    assert successive_halving(designed(8), noisy, [100, 200], keep=0.25, kept_on_noise=0)[0].noise_kept == []


def rec(j: int, fitness: float, se: float, steps: int) -> CandidateRecord:
    return CandidateRecord(
        id=f"1.{j}", iteration=1, index=j, status="trained", fitness=fitness, fitness_se=se, timesteps=steps
    )


def test_a_survivor_whose_curve_rose_only_within_noise_goes_on():
    """Issue 23: a good reward must not be dropped on noise. 1.3 rose by 0.1, within its standard error of 0.5;
    the old rule (stop unless it rose by more than its se) stopped it as a "flat curve"; on the reacher pool's
    replay that rule cut the default's good rewards returned from 18/20 to 12/20."""
    from rewardsmith.search.halving import Rung, cut

    now = [rec(1, 10.0, 0.1, 200), rec(2, 9.0, 0.1, 200), rec(3, 8.9, 0.5, 200), rec(4, 1.0, 0.1, 200)]
    before = {r.id: r.model_copy(update={"fitness": 8.8, "timesteps": 100}) for r in now}
    rung = Rung(2, 200, trained=now)
    going = cut(rung, now, 0.25, before, last=False)
    assert rung.noise_kept == ["1.3"] and [r.id for r in going] == ["1.1", "1.2", "1.3"]


def test_a_candidate_kept_on_noise_that_then_stops_on_its_falling_curve_is_reported_as_stopped():
    """halving.json must say what happened: a candidate within noise of the cut line whose curve fell stops, and its
    "next" says so, not "promoted" (the replay of the pendulum pool showed such)."""
    from rewardsmith.search.halving import Rung, cut

    now = [rec(1, 10.0, 0.1, 200), rec(2, 9.0, 0.1, 200), rec(3, 8.9, 0.5, 200), rec(4, 1.0, 0.1, 200)]
    before = {r.id: r.model_copy(update={"fitness": 8.8 if r.id != "1.3" else 12.0, "timesteps": 100}) for r in now}
    rung = Rung(2, 200, trained=now)
    rung.promoted = [r.id for r in cut(rung, now, 0.25, before, last=False)]
    assert rung.noise_kept == ["1.3"] and rung.stopped["1.3"] == "falling curve"  # fell 3.1, noise 0.51
    assert "1.3" not in rung.promoted
    assert {c["id"]: c["next"] for c in rung.as_dict()["candidates"]}["1.3"] == "falling curve"


def test_a_falling_curve_stops_unless_it_leads():
    from rewardsmith.search.halving import Rung, cut

    now = [rec(1, 5.0, 0.1, 200), rec(2, 4.0, 0.1, 200), rec(3, 3.9, 0.1, 200), rec(4, 3.8, 0.1, 200)]
    before = {"1.1": 9.0, "1.2": 3.0, "1.3": 6.0, "1.4": 3.0}  # 1.1 and 1.3 fell
    previous = {r.id: r.model_copy(update={"fitness": before[r.id], "timesteps": 100}) for r in now}
    rung = Rung(2, 200, trained=now)
    going = [r.id for r in cut(rung, now, 0.75, previous)]
    assert going == ["1.1", "1.2", "1.4"] and rung.stopped["1.3"] == "falling curve"  # the leader 1.1 goes on
    assert [r.id for r in cut(Rung(2, 200, trained=now), now, 0.75, None)] == ["1.1", "1.2", "1.3", "1.4"]


def test_the_first_cut_puts_what_the_screen_rejects_behind_what_it_passes():
    """A reward that leads the first rung but orders the archived episodes against the trusted fitness (the
    screen rejects it) goes behind the candidates the screen passed; the screen judges once, at the first cut,
    and a screen that rejects everybody says more about its archive than about the rewards: order unchanged."""
    from rewardsmith.stages.screen import ScreenReport

    rates = {f"1.{i}": rate for i, rate in enumerate((1.0, 4.0, 3.0, 2.0, 0.5, 1.5, 2.5, 0.2), 1)}
    calls: list[list[str]] = []

    def screen(rejected: set[str]):
        def judge(records):
            calls.append([r.id for r in records])
            return {
                r.id: ScreenReport(r.id not in rejected, 0.3 if r.id in rejected else 0.9, None, 40, "acc")
                for r in records
            }

        return judge

    rungs = successive_halving(designed(8), Trainer(rates), [100, 200, 400], keep=0.25, screen=screen({"1.2", "1.7"}))
    assert len(calls) == 1 and sorted(calls[0]) == sorted(rates)  # every trained candidate, once
    assert rungs[0].promoted == ["1.3", "1.4"]  # the best two the screen passed, though 1.2 and 1.7 led
    assert rungs[0].stopped["1.2"].startswith("screened out") and rungs[0].stopped["1.1"] == "halved"
    assert rungs[0].as_dict()["candidates"][1]["screen"] == {"passed": False, "accuracy": 0.3, "spearman": None}
    everybody = successive_halving(designed(8), Trainer(rates), [100, 200, 400], keep=0.25, screen=screen(set(rates)))
    assert everybody[0].promoted == ["1.2", "1.3"]
    few = successive_halving(
        designed(8), Trainer(rates), [100, 200, 400], keep=0.25, screen=screen(set(rates) - {"1.8"})
    )
    assert few[0].promoted == ["1.8", "1.2"]  # the one that passed, then the best of the rest: two still go on


def test_is_falling_uses_the_noise_of_the_difference():
    before = CandidateRecord(id="1.1", iteration=1, index=1, status="trained", fitness=1.0, fitness_se=0.1)
    flat = before.model_copy(update={"fitness": 1.0})
    down_by_noise = before.model_copy(update={"fitness": 0.9})  # fell 0.1 < 0.1 * sqrt(2)
    down_clearly = before.model_copy(update={"fitness": 0.5})
    assert not is_falling(before, flat) and not is_falling(before, down_by_noise) and is_falling(before, down_clearly)
    assert not is_falling(None, down_clearly)


def test_failed_candidates_stop_and_finished_rungs_are_not_retrained():
    records = designed(3)
    records[2] = records[2].model_copy(update=dict(status="trained", fitness=9.0, fitness_se=0.1, timesteps=200))

    def train(record, timesteps, resume):
        if record.id == "1.1":
            return record.model_copy(update=dict(status="failed", reason="[training] boom"))
        return record.model_copy(update=dict(status="trained", fitness=1.0, fitness_se=0.1, timesteps=timesteps))

    rungs = successive_halving(records, train, [100, 200], keep=1.0)
    assert rungs[0].stopped["1.1"].startswith("training failed")
    assert rungs[0].steps == 100  # 1.3 had already reached 200 in an interrupted pass: not paid again
    assert [r.id for r in rungs[1].trained] == ["1.3", "1.2"]


def test_warm_start_copies_the_parents_weights_only(tmp_path):
    """`--warm-start`: a candidate whose parent trained gets the parent's weights in its own folder (the only
    folder its training worker may read); without a trained parent it starts fresh."""
    from rewardsmith.run_folder.folder import RunFolder
    from rewardsmith.run_folder.names import WARM_START_FILE
    from rewardsmith.run_folder.records import WEIGHTS_FILE
    from rewardsmith.search.training import warm_start

    folder = RunFolder(tmp_path)
    records = [
        CandidateRecord(id="1.1", iteration=1, index=1, status="trained", fitness=0.2, timesteps=512),
        CandidateRecord(id="1.2", iteration=1, index=2, status="rejected", reason="NameError"),
        CandidateRecord(id="2.1", iteration=2, index=1, parent="1.1", status="designed"),
        CandidateRecord(id="2.2", iteration=2, index=2, parent="1.2", status="designed"),
        CandidateRecord(id="1.3", iteration=1, index=3, status="designed"),
    ]
    for record in records:
        folder.cand_dir(record.iteration, record.index).mkdir(parents=True)
        folder.save_candidate(record)
    (folder.cand_dir(1, 1) / WEIGHTS_FILE).write_bytes(b"weights of 1.1")
    path = warm_start(folder, records[2])
    assert path == folder.cand_dir(2, 1) / WARM_START_FILE and path.read_bytes() == b"weights of 1.1"
    assert warm_start(folder, records[3]) is None  # its parent never trained
    assert warm_start(folder, records[4]) is None  # no parent: iteration 1


@pytest.mark.slow
def test_a_warm_started_run_trains_iteration_2_from_the_best_policy(tmp_path, tiny_spec, monkeypatch):
    """A scripted two-iteration run with --warm-start: iteration 2's training jobs start from 1.x's weights."""
    import json
    from pathlib import Path

    from rewardsmith.config import RunConfig
    from rewardsmith.search.loop import run as run_search

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    spec = tiny_spec("inverted-double-pendulum-balance", timesteps=1024, eval_episodes=2)
    script = Path(__file__).parent / "data" / "loop_e2e.jsonl"
    folder = run_search(
        RunConfig(
            task=str(spec),
            model=f"scripted:{script}",
            iterations=2,
            samples=2,
            repair_rounds=1,
            workers=2,
            final_seeds=0,
            rungs=[1.0],
            warm_start=True,
            out=tmp_path / "run",
        )
    )
    started = [e for e in folder.events() if e["event"] == "training_started"]
    second = [e for e in started if e["candidate"].startswith("2.")]
    assert second and all(e.get("warm_start_from", "").startswith("1.") for e in second)
    assert not any("warm_start_from" in e for e in started if e["candidate"].startswith("1."))
    for e in second:
        iteration, index = map(int, e["candidate"].split("."))
        job = json.loads((folder.cand_dir(iteration, index) / "job.json").read_text())
        assert job["options"]["continue_from"].endswith("warm_start.safetensors")
        assert job["options"].get("resume_timesteps") == 0


@pytest.mark.parametrize(
    ("search", "final", "trained", "checkpoint", "seed_0"),
    [
        (20000, 20000, 20480, False, "reuse"),  # PPO rounded the budget up to whole rollouts: still the full budget
        (20000, 20000, 20000, False, "reuse"),
        (20000, 20000, 5120, True, "resume"),  # stopped at a rung: go on from its own weights
        (20000, 40000, 20480, True, "resume"),
        (40000, 20000, 40960, True, "train"),  # trained past the final budget: not that policy
        (20000, 20000, 5120, False, "train"),
    ],
)
def test_the_final_plan_reuses_only_a_training_of_the_final_budget(
    tmp_path, search, final, trained, checkpoint, seed_0
):
    from types import SimpleNamespace

    from rewardsmith.config import RunConfig
    from rewardsmith.run_folder.names import CHECKPOINT_FILE
    from rewardsmith.search.final import final_plan

    if checkpoint:
        (tmp_path / CHECKPOINT_FILE).write_bytes(b"weights")
    folder = SimpleNamespace(cand_dir=lambda iteration, index: tmp_path)
    config = RunConfig(task="t", timesteps=search, final_timesteps=final, final_seeds=2, seed=0)
    best = CandidateRecord(id="1.1", iteration=1, index=1, status="trained", timesteps=trained)
    assert final_plan(folder, config, best) == {0: seed_0, 1: "train"}
