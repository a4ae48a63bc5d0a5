"""Status lines that never contradict (issue 26): "new best" names the candidate the run's own rule returns and says
why it ranks above a higher single number; a candidate stopped at a cut is stopped for its real reason."""

from __future__ import annotations

import threading
from types import SimpleNamespace

from conftest import write_idp_tiny_task

from rewardsmith.config import RunConfig
from rewardsmith.run_folder.folder import RunFolder
from rewardsmith.run_folder.records import CandidateRecord
from rewardsmith.search.evidence import Evidence, load_evidence
from rewardsmith.search.halving import successive_halving
from rewardsmith.search.live import describe_state, describe_status
from rewardsmith.search.selection import best_record, why_ahead
from rewardsmith.search.session import update_best
from rewardsmith.search.spread import SeedSpread
from rewardsmith.stages.screen import ScreenReport
from rewardsmith.task import read_task

REWARD = "def compute_reward(state, action, next_state):\n    return 1.0, {}\n"


def rec(cid: str, fitness: float, se: float = 0.01, timesteps: int = 1000, status: str = "trained") -> CandidateRecord:
    iteration, index = (int(x) for x in cid.split("."))
    return CandidateRecord(
        id=cid, iteration=iteration, index=index, status=status, fitness=fitness, fitness_se=se, episodes=5,
        timesteps=timesteps,
    )  # fmt: skip


class Lines:
    """A `Progress` that keeps what it was told."""

    def __init__(self) -> None:
        self.logs: list[str] = []
        self.fields: dict = {}

    def update(self, candidate_id, state, **fields) -> None:
        pass

    def status(self, **fields) -> None:
        self.fields.update(fields)

    def log(self, message: str) -> None:
        self.logs.append(message)


def planted_run(tmp_path, records: list[CandidateRecord], **config) -> SimpleNamespace:
    """A run folder holding `records` (each with a reward the parent wrote), as update_best sees a `Search`."""
    spec = read_task(write_idp_tiny_task(tmp_path / "task"))
    (tmp_path / "run").mkdir()
    folder = RunFolder.create(tmp_path / "run", RunConfig(task=str(spec.source), **config), spec, "scripted:x")
    for r in records:
        folder.cand(r.iteration, r.index).write_reward(REWARD, parent=None, model="scripted:x")
        folder.save_candidate(r)
    return SimpleNamespace(
        folder=folder, spec=spec, config=folder.config(), best_lock=threading.Lock(), progress=Lines()
    )


def test_new_best_names_the_rules_pick_and_why_it_ranks_above_a_higher_number(tmp_path):
    """1.1 scored 1.1 but stopped at the first rung; 1.2 scored 0.8 at the full budget. The run returns 1.2, so the
    line says 1.2 and why, never a bare "new best 1.2" after 1.1's higher number."""
    (tmp_path / "task").mkdir()
    s = planted_run(tmp_path, [rec("1.1", 1.1, timesteps=1024), rec("1.2", 0.8, timesteps=4096)])
    update_best(s)
    returned = best_record(s.folder.candidates(), evidence=load_evidence(s.folder, s.spec))
    assert returned.id == "1.2" == s.folder.best_id()
    (line,) = s.progress.logs
    assert line.startswith("new best: 1.2, search fitness 0.8 ± 0.01 s.e. at 4,096 steps")
    assert "ranks above 1.1 (fitness 1.1) because 1.1 stopped at 1,024 steps" in line
    assert "best 1.2: search fitness 0.8 at 4,096 steps" in describe_status(s.progress.fields)
    update_best(s)  # unchanged: no second line
    assert len(s.progress.logs) == 1


def test_why_ahead_names_the_key_that_decided():
    steady, lucky = rec("1.2", 0.9, se=0.01), rec("1.1", 1.0, se=0.5)
    assert "lower confidence bound" in why_ahead(steady, lucky)
    assert "1.1's mean 1 is higher than its 0.9, but less certain" in why_ahead(steady, lucky)
    # ranked by means over two seeds that a single rung number does not show: the reason names the means
    assert "its mean is higher too: 1 vs 0.9" in why_ahead(rec("1.2", 1.0, se=0.1), rec("1.1", 0.9, se=0.1))
    assert "1.1 stopped at 1,000 steps" in why_ahead(rec("1.2", 0.5, timesteps=4000), lucky)
    warned = Evidence(SeedSpread(prior=0.5), {"1.1": "critic: the total is constant over the sampled states"})
    plain, swapped = rec("1.2", 1.0, se=0.05), rec("1.1", 1.1, se=0.05)
    assert best_record([plain, swapped], evidence=warned).id == "1.2"
    assert "critic's warning breaks the tie" in why_ahead(plain, swapped, evidence=warned)
    assert "constant" in why_ahead(plain, swapped, evidence=warned)
    assert "highest mean" in why_ahead(rec("1.1", 1.1), rec("1.2", 1.0), rule="mean")


def test_load_evidence_drops_a_warning_on_the_signed_first_cut_screen_never_a_planted_one(tmp_path):
    from rewardsmith.files import write_json_atomic
    from rewardsmith.run_folder.names import RUNG_SCREEN_DIR, SCREEN_FILE

    (tmp_path / "task").mkdir()
    s = planted_run(tmp_path, [rec("1.1", 1.0), rec("1.2", 0.9), rec("1.3", 0.9)])
    fired = [{"label": "1.1", "episode": i, "fitness": 0.0, "steps": 50, "return": r} for i, r in enumerate([0, 0, 5, 0])]
    for index in (1, 2, 3):
        cand = s.folder.cand(1, index)
        cand.save_json(cand.critic_path, {"accepted": True, "findings": [{"code": "constant-total"}]})
        cand.rung_screen_dir.mkdir()
        write_json_atomic(cand.rung_screen_dir / SCREEN_FILE, {"details": fired})
        if index != 2:  # 1.2's screen verdict was written by someone else: no proof
            cand.sign(cand.rung_screen_dir / SCREEN_FILE)
    (s.folder.cand(1, 3).rung_screen_dir / SCREEN_FILE).write_text('{"details": []}')  # changed after signing
    evidence = load_evidence(s.folder, s.spec)
    assert set(evidence.cleared) == {"1.1"} and set(evidence.warnings) == {"1.2", "1.3"}
    assert s.folder.cand(1, 2).unproven() == [s.folder.cand(1, 2).rung_screen_dir / SCREEN_FILE]
    assert RUNG_SCREEN_DIR in str(s.folder.cand(1, 3).unproven()[0])


def test_live_lines_carry_the_steps_behind_a_fitness():
    assert describe_state("analysed", {"fitness": 0.31, "steps": 1024}) == "analysed: fitness 0.31 at 1,024 steps"
    assert describe_state("analysed", {"fitness": 0.31}) == "analysed: fitness 0.31"


def screen_only(passed: set[str]):
    def judge(records):
        return {r.id: ScreenReport(r.id in passed, 0.9 if r.id in passed else 0.2, None, 40, "acc") for r in records}

    return judge


def trainer(rates: dict[str, float]):
    def train(record, timesteps, resume):
        return record.model_copy(
            update=dict(
                status="trained", fitness=rates[record.id] * timesteps, fitness_se=0.01, episodes=5, timesteps=timesteps
            )
        )

    return train


def test_a_runner_up_the_screen_rejected_stops_for_the_screen_not_behind_the_leader():
    """Four candidates, keep 1/4: two go on by the floor of two, the second only for a close call. The second here
    failed the screen; its line must say so, not "behind a distinguishable leader"."""
    designed = [CandidateRecord(id=f"1.{j}", iteration=1, index=j, status="designed") for j in range(1, 5)]
    rates = {"1.1": 1.0, "1.2": 4.0, "1.3": 3.0, "1.4": 2.0}
    rungs = successive_halving(designed, trainer(rates), [100, 200, 400, 800], keep=0.25, screen=screen_only({"1.2"}))
    assert rungs[0].promoted == ["1.2"]
    assert rungs[0].stopped["1.3"] == "screened out: acc", rungs[0].stopped
    assert all(why.startswith("screened out") for why in rungs[0].stopped.values())
    # a screen-passed runner-up that is clearly behind still stops for that reason
    passed = successive_halving(
        designed, trainer(rates), [100, 200, 400, 800], keep=0.25, screen=screen_only(set(rates))
    )
    assert passed[0].stopped["1.3"] == "behind a distinguishable leader"


def test_a_screen_that_rejects_everyone_is_not_named_as_the_reason():
    """A screen that passed nobody reorders nothing (`screened_order`), so a candidate cut then was halved by its
    rank; it may still be trained on to face a lone survivor."""
    designed = [CandidateRecord(id=f"1.{j}", iteration=1, index=j, status="designed") for j in range(1, 5)]
    rates = {"1.1": 1.0, "1.2": 4.0, "1.3": 3.0, "1.4": 2.0}
    rungs = successive_halving(designed, trainer(rates), [100, 200, 400, 800], keep=0.25, screen=screen_only(set()))
    assert rungs[0].promoted == ["1.2"]
    assert rungs[0].stopped["1.1"] == "halved (the screen rejected every candidate, so it reordered nothing)"
    assert rungs[0].stopped["1.3"].startswith("behind a distinguishable leader (the screen rejected every")
    assert rungs[-1].revived == "1.3"  # the best one stopped for its rank faces the lone survivor


def test_the_next_prompt_builds_on_the_best_the_run_itself_would_pick(tmp_path):
    """`prompt --iteration-2-from` shows the iteration the run would run next: its best by the run's own rule (here
    Eureka's highest mean, where the default rule would take the steadier 1.2)."""
    from rewardsmith.cli.prompt import designer_messages

    (tmp_path / "task").mkdir()
    s = planted_run(tmp_path, [rec("1.1", 1.0, se=0.5), rec("1.2", 0.9, se=0.01)], strategy="eureka")
    messages, which = designer_messages(str(s.spec.source), s.folder.path)
    assert which == "iteration 2" and "candidate 1.1, the best so far" in messages[-1]["content"]


def test_a_rungs_line_says_why_a_candidate_went_on_beyond_the_fraction():
    from rewardsmith.search.rungs import going_on

    designed = [CandidateRecord(id=f"1.{j}", iteration=1, index=j, status="designed") for j in range(1, 9)]
    rates = {f"1.{i}": rate for i, rate in enumerate((1.0, 4.0, 3.0, 2.0, 0.5, 1.5, 2.5, 0.2), 1)}
    few = successive_halving(designed, trainer(rates), [100, 200, 400], keep=0.25, screen=screen_only({"1.8"}))
    assert few[0].promoted == ["1.8", "1.2"]
    assert [going_on(few[0], cid) for cid in few[0].promoted] == [
        "1.8",
        "1.2 (rejected by the screen, kept so that two compare)",
    ]
    nobody = successive_halving(designed, trainer(rates), [100, 200, 400], keep=0.25, screen=screen_only(set()))
    assert [going_on(nobody[0], cid) for cid in nobody[0].promoted] == ["1.2", "1.3"]  # the screen changed nothing

    def noisy(record, timesteps, resume):
        return trainer(rates)(record, timesteps, resume).model_copy(update={"fitness_se": 500.0})

    close = successive_halving(designed, noisy, [100, 200], keep=0.25)
    assert going_on(close[0], close[0].noise_kept[0]).endswith("(within noise of the cut line)")
