"""Issue 23's ranking rules on synthetic fitness tables (no training): the between-seed floor
(rewardsmith.search.spread), the critic's tie-breaker (rewardsmith.search.evidence), second-seed repeats of
close candidates in halving, and the bootstrap confidence (rewardsmith.search.confidence)."""

from __future__ import annotations

import json
import math

import pytest

from rewardsmith.run_folder.records import CandidateRecord
from rewardsmith.search.confidence import Sample, bootstrap, describe_confidence
from rewardsmith.search.evidence import Evidence, structural_finding
from rewardsmith.search.halving import close_pair, successive_halving
from rewardsmith.search.selection import best_record, describe_selection, pick
from rewardsmith.search.spread import Repeat, SeedSpread, pooled_variance, prior_sd
from rewardsmith.stages.screen import ScreenReport
from rewardsmith.task import Calibration


def rec(cid: str, fitness: float, se: float, timesteps: int = 1000) -> CandidateRecord:
    iteration, index = (int(x) for x in cid.split("."))
    return CandidateRecord(
        id=cid,
        iteration=iteration,
        index=index,
        status="trained",
        fitness=fitness,
        fitness_se=se,
        episodes=5,
        timesteps=timesteps,
    )


def floor_of(sd: float) -> Evidence:
    return Evidence(SeedSpread(prior=sd))


def test_two_rewards_distinguishable_on_episodes_are_not_under_seed_variance():
    a, b = rec("1.1", 2.0, 0.05), rec("1.2", 1.7, 0.05)
    assert pick([a, b]).distinguishable is True  # the episodes alone: 0.3 over 0.07
    under = pick([a, b], evidence=floor_of(0.5))  # the same reward trained twice differs by ~0.5
    assert under.distinguishable is False and under.noise == pytest.approx(math.sqrt(2 * 0.05**2 + 2 * 0.5**2))
    assert under.as_dict()["floor"] == {"sd": 0.5, "how": "prior", "pairs": 0, "budget": 1000, "most_seeds": 2}
    assert "seed sd 0.5 (prior" in describe_selection(under.as_dict())
    assert "evaluation noise only" in describe_selection(pick([a, b], evidence=Evidence(SeedSpread())).as_dict())


def test_the_measured_floor_takes_the_evaluation_noise_out_and_is_kept_for_resume(tmp_path):
    path = tmp_path / "seed_spread.json"
    spread = SeedSpread.load(path, prior=0.1)
    assert spread.floor(1000).how == "prior"
    spread.add(Repeat("1.1", 1000, (0, 1), (2.057, 0.651), (0.1, 0.1), ((2.0, 2.1), (0.6, 0.7))))
    sd = math.sqrt(((2.057 - 0.651) ** 2 - 0.02) / 2)
    again = SeedSpread.load(path, prior=0.1)  # a resumed run reads the repeats back
    assert again.floor(1000) == spread.floor(1000) and again.floor(1000).sd == pytest.approx(sd)
    assert again.floor(1000).how == "measured" and again.floor(1000).pairs == 1
    assert again.floor(4000).how == "prior"  # another budget falls back to the prior
    assert again.repeat_of("1.1", 1000).episodes[1] == (0.6, 0.7)
    # a pair that differs by less than its evaluation noise measures no seed spread at all
    assert pooled_variance([Repeat("1.2", 1000, (0, 1), (1.0, 1.01), (0.1, 0.1))]) == 0.0
    path.write_text(json.dumps({"repeats": [{"candidate": "1.3", "budget": "x"}]}))
    assert SeedSpread.load(path).repeats == []  # malformed rows are dropped, not trusted


def test_a_second_seed_scores_a_candidate_by_both_seeds():
    a, b = rec("1.1", 2.0, 0.05), rec("1.2", 1.9, 0.05)  # 1.1's first seed was lucky: its second scored 1.0
    spread = SeedSpread([Repeat("1.1", 1000, (0, 1), (2.0, 1.0), (0.05, 0.05))])
    assert best_record([a, b]).id == "1.1"
    assert best_record([a, b], evidence=Evidence(spread)).id == "1.2"


def test_the_spec_calibration_is_a_prior():
    cal = Calibration(budget=1000, seeds=4, good=[2.0, 0.25])
    assert prior_sd(type("Spec", (), {"fresh_calibration": cal})()) == pytest.approx(0.5)
    assert prior_sd(type("Spec", (), {"fresh_calibration": Calibration(budget=1000, seeds=1, good=[2.0, 0.0])})()) is None
    spread = SeedSpread(prior=0.5, prior_budget=1000)  # the prior holds at the budget it was measured at only
    assert spread.floor(1000).how == "prior" and spread.floor(64).how == "none"


def test_a_rung_and_its_rounded_up_training_share_the_floor_and_the_second_seed():
    # a 20,000-step rung trains PPO to 20,480 steps (whole rollouts): the repeat is kept at the rung's budget, the
    # record carries the trained steps; the ranking must still see both seeds (a real run lost them, round 13)
    a, b = rec("1.1", 2.0, 0.05, timesteps=20_480), rec("1.2", 1.9, 0.05, timesteps=20_480)
    spread = SeedSpread([Repeat("1.1", 20_000, (0, 1), (2.0, 1.0), (0.05, 0.05))], prior=0.3, prior_budget=20_000)
    assert spread.floor(20_480).how == "measured" and spread.repeat_of("1.1", 20_480) is not None
    assert best_record([a, b], evidence=Evidence(spread)).id == "1.2"
    assert pick([a, b], evidence=Evidence(spread)).as_dict()["floor"]["how"] == "measured"
    assert SeedSpread(prior=0.3, prior_budget=20_000).floor(20_480).how == "prior"  # the calibration's, rounded up
    assert spread.floor(40_960).how == "none" and spread.repeat_of("1.1", 5_120) is None  # other rungs stay apart


def critic(components: dict[str, tuple[float, float, float]], codes: tuple[str, ...] = ()) -> dict:
    """A critic.json with component (mean, std, mean_abs) statistics."""
    return {
        "findings": [{"code": c, "message": "component 'alive' (mean |value| 1) is over 100x"} for c in codes],
        "stats": {
            "dynamic": {"components": {k: {"mean": m, "std": s, "mean_abs": a} for k, (m, s, a) in components.items()}}
        },
    }


def structural_warning(critic: dict | None) -> str | None:
    found = structural_finding(critic)
    return found[1] if found else None


def test_structural_warnings_name_a_constant_term_that_dominates():
    alive = critic({"alive": (1.0, 0.0, 1.0), "backward": (0.01, 0.3, 0.2)})
    assert "alive" in structural_warning(alive) and "83%" in structural_warning(alive)
    assert "total is constant" in structural_warning({"findings": [{"code": "constant-total"}]})
    assert "dominates" in structural_warning(critic({"alive": (1.0, 0.0, 1.0)}, ("dominant-component",)))
    progress = critic({"alive": (1.0, 0.0, 1.0), "backward": (0.5, 2.0, 3.0)})
    assert structural_warning(progress) is None  # an alive bonus smaller than the task's term is fine
    assert structural_warning(critic({"speed": (0.5, 2.0, 3.0)})) is None and structural_warning(None) is None


def test_the_critics_warning_breaks_a_tie_but_never_a_distinguishable_lead():
    warned, clean = rec("1.1", 2.0, 0.3), rec("1.2", 1.9, 0.3)
    evidence = Evidence(SeedSpread(), {"1.1": "critic: the total is constant over the sampled states"})
    verdict = pick([warned, clean], evidence=evidence)
    assert verdict.winner == "1.2" and verdict.runner_up == "1.1" and "critic" in verdict.tie_break
    assert best_record([warned, clean], evidence=evidence).id == "1.2"
    sure = pick([rec("1.1", 2.0, 0.01), rec("1.2", 1.9, 0.01)], evidence=evidence)
    assert sure.winner == "1.1" and sure.tie_break is None
    assert pick([warned, clean], rule="mean", evidence=evidence).winner == "1.1"  # Eureka's rule is left as it is


def screened(per_step: list[float], steps: int = 50) -> ScreenReport:
    details = [
        {"label": f"1.{i % 3}", "episode": i, "fitness": 0.0, "steps": steps, "return": v * steps}
        for i, v in enumerate(per_step)
    ]
    return ScreenReport(True, 0.7, 0.5, len(details), "ok", 3, details)


def test_a_sparse_reward_the_critic_saw_as_constant_loses_its_warning_where_it_fired():
    """The critic's smoke states are near-random, so a reward paid only near the goal looks constant there; the
    first cut's screen replays it over the first rung's episodes, and a per-step return that varied there drops the
    warning (reacher's 5 mm reward, good at 65,536 steps, lost the tie-break on it). An alive bonus stays warned."""
    warning = "critic: the total is constant over the sampled states"
    evidence = Evidence(SeedSpread(), {"1.1": warning, "1.2": warning, "1.3": warning})
    evidence.recheck(
        {
            "1.1": screened([0.0, 0.0, 0.0, 0.4, 0.0, 0.9]).details,  # fired on two episodes
            "1.2": screened([1.0] * 6).details,  # +1 a step on every episode
            "1.3": [{"label": "1.1", "episode": 0, "fitness": 0.0, "return": 3.0}],  # no lengths
        }
    )
    assert set(evidence.warnings) == {"1.2", "1.3"} and "varied across 6 archived episodes" in evidence.cleared["1.1"]
    sparse, clean = rec("1.1", 2.0, 0.3), rec("1.2", 1.9, 0.3)
    verdict = pick([sparse, clean], evidence=evidence)
    assert verdict.winner == "1.1" and "no tie-break on 1.1" in verdict.tie_break


def test_halving_rechecks_the_warnings_on_the_first_cuts_screen():
    rates = {"1.1": 1.0, "1.2": 1.0001, "1.3": 0.5, "1.4": 0.4}
    warning = "critic: the total is constant over the sampled states"

    def train(record, timesteps, resume):
        return record.model_copy(
            update=dict(status="trained", fitness=rates[record.id], fitness_se=0.2, timesteps=timesteps)
        )

    designed = [CandidateRecord(id=f"1.{j}", iteration=1, index=j, status="designed") for j in range(1, 5)]
    for screen, winner in ((None, "1.1"), ({"1.2": screened([0.0, 0.0, 0.5, 0.0, 0.2, 0.0])}, "1.2")):
        evidence = Evidence(SeedSpread(), {"1.2": warning})
        rungs = successive_halving(
            designed, train, [100, 200], evidence=evidence, screen=(lambda ok, s=screen: s) if screen else None
        )
        assert pick(rungs[-1].trained, evidence=evidence).winner == winner  # the warning, unless it fired


def test_halving_trains_a_close_leader_and_rival_on_a_second_seed_once():
    rates = {"1.1": 1.0, "1.2": 4.0, "1.3": 3.9999, "1.4": 2.0}
    evidence = Evidence(SeedSpread())
    calls: list[tuple[list[str], int]] = []

    def train(record, timesteps, resume):
        return record.model_copy(
            update=dict(status="trained", fitness=rates[record.id] * timesteps, fitness_se=0.01, timesteps=timesteps)
        )

    def repeat(records, budget):
        calls.append(([r.id for r in records], budget))
        for r in records:  # the second seed scores the same reward 30% lower
            evidence.spread.add(Repeat(r.id, budget, (0, 1), (r.fitness, r.fitness * 0.7), (0.01, 0.01)))
        return budget * len(records)

    designed = [CandidateRecord(id=f"1.{j}", iteration=1, index=j, status="designed") for j in range(1, 5)]
    rungs = successive_halving(designed, train, [100, 200], keep=0.5, evidence=evidence, repeat=repeat)
    assert calls[0] == (["1.2", "1.3"], 100) and rungs[0].repeated == ["1.2", "1.3"] and rungs[0].repeat_steps == 200
    assert evidence.floor(100).how == "measured" and evidence.floor(100).sd > 50
    assert close_pair(rungs[0].trained, evidence) == []  # both repeated at this budget: not paid again
    assert rungs[-1].as_dict()["repeated_on_a_second_seed"] == rungs[-1].repeated
    # a clear leader is not repeated
    assert close_pair([rec("1.1", 10.0, 0.01), rec("1.2", 1.0, 0.01)], Evidence(SeedSpread())) == []


def test_a_clear_leader_at_the_last_rung_is_trained_on_a_second_seed_and_a_lucky_one_loses_the_pick():
    """One training seed made 1.1 the clear leader (0.92); its second seed scores 0.2 (the acrobot hovering reward:
    0.92 on its search seed, 0.77 and 0.56 on two others). The confirmation puts 1.2 in front, which is confirmed in
    turn (0.85 again), and 1.2 is returned. Without the confirmation 1.1 is."""
    first = {"1.1": 0.92, "1.2": 0.80, "1.3": 0.1, "1.4": 0.05}
    second = {"1.1": 0.2, "1.2": 0.85}

    def train(record, timesteps, resume):
        return record.model_copy(
            update=dict(status="trained", fitness=first[record.id], fitness_se=0.01, timesteps=timesteps)
        )

    def run(confirm: bool) -> tuple[list, list[tuple[list[str], int]], Evidence]:
        evidence, calls = Evidence(SeedSpread()), []

        def repeat(records, budget):
            calls.append(([r.id for r in records], budget))
            fresh = [r for r in records if not evidence.spread.repeat_of(r.id, budget)]  # as a run's repeater
            for r in fresh:
                evidence.spread.add(Repeat(r.id, budget, (0, 1), (r.fitness, second[r.id]), (0.01, 0.01)))
            return budget * len(fresh)

        designed = [CandidateRecord(id=f"1.{j}", iteration=1, index=j, status="designed") for j in range(1, 5)]
        rungs = successive_halving(designed, train, [100, 400], evidence=evidence, repeat=repeat, confirm=confirm)
        return rungs, calls, evidence

    rungs, calls, evidence = run(confirm=True)
    last = rungs[-1]
    assert [r.id for r in last.trained] == ["1.1", "1.2"]  # 1.1 was clear at both rungs on its one seed
    assert calls[:2] == [(["1.1"], 400), (["1.2"], 400)] and last.repeated[:2] == ["1.1", "1.2"]
    assert last.repeat_steps == 800  # each confirmed once; the close-pair check does not pay for them again
    assert pick(last.trained, evidence=evidence).winner == "1.2"
    rungs, calls, evidence = run(confirm=False)
    assert calls == [] and pick(rungs[-1].trained, evidence=evidence).winner == "1.1"


def test_a_failed_confirmation_is_not_retried_and_a_confirmed_leader_is_not_trained_again():
    from rewardsmith.search.halving import Rung, confirm_leader

    calls: list[list[str]] = []
    evidence = Evidence(SeedSpread())
    ok = [rec("1.1", 0.9, 0.01, 400), rec("1.2", 0.5, 0.01, 400)]
    rung = Rung(2, 400)
    confirm_leader(rung, ok, lambda records, budget: calls.append([r.id for r in records]) or 0, evidence)
    assert calls == [["1.1"]] and rung.repeated == [] and rung.repeat_steps == 0  # the failure records nothing
    evidence.spread.add(Repeat("1.1", 400, (0, 1), (0.9, 0.88), (0.01, 0.01)))
    confirm_leader(rung, ok, lambda records, budget: calls.append([r.id for r in records]) or budget, evidence)
    assert calls == [["1.1"]]  # already on two seeds at this budget (a resumed run): nothing to confirm


def test_the_bootstrap_says_how_sure_the_pick_is_and_names_the_runner_up():
    clear = bootstrap({"a": Sample(((5.0, 5.2, 4.9, 5.1),)), "b": Sample(((1.0, 1.1, 0.9, 1.2),))}, "a")
    assert clear.p_best == 1.0 and clear.peers == {"b": 1.0}
    close = bootstrap(
        {"a": Sample(((2.0, 2.2, 1.8),)), "b": Sample(((1.9, 2.1, 2.0),)), "c": Sample((), 0.0, 0.1)}, "a"
    )
    assert close.p_best < 0.9 and close.runner_up == "b" and close.peers["c"] > 0.99
    line = describe_confidence(close.as_dict())
    assert "runner-up b" in line and f"{close.p_best:.2f}" in line
    assert "runner-up" not in describe_confidence(clear.as_dict())
    # a known seed spread widens the doubt; two seeds are resampled as seeds
    assert bootstrap({"a": Sample(((5.0, 5.2),)), "b": Sample(((4.0, 4.1),))}, "a", sd=2.0).p_best < 0.9
    two = bootstrap({"a": Sample(((5.0, 5.1), (1.0, 1.1))), "b": Sample(((3.0, 3.1),))}, "a")
    assert 0.3 < two.p_best < 0.7 and "seeds" in two.method
    # a spread measured as none beyond the episodes is not an unknown one
    assert "no seed-to-seed spread known" in two.method
    measured = bootstrap({"a": Sample(((5.0, 5.1), (1.0, 1.1))), "b": Sample(((3.0, 3.1),))}, "a", sd_known=True)
    assert "measured: none beyond" in measured.method


def test_only_the_warnings_the_pools_support_break_ties():
    """bench/critic_warnings.py: a constant total fell only on weak rewards; an alive term's share of the magnitude
    fell on 7 of 8 good pendulum rewards (staying up is that task), so it is shown but weighs nothing."""
    from rewardsmith.search.evidence import TIE_BREAK_KINDS, tie_break_warning

    pendulum_good = critic({"alive": (1.0, 0.0, 1.0), "tip_height": (0.1, 0.05, 0.2)})
    assert structural_finding(pendulum_good)[0] == "constant-share" and "constant-share" not in TIE_BREAK_KINDS
    assert structural_warning(pendulum_good) is not None and tie_break_warning(pendulum_good) is None
    total = {"findings": [{"code": "constant-total"}]}
    assert tie_break_warning(total) == structural_warning(total) == "critic: the total is constant over the sampled states"


def test_the_best_candidates_search_fitness_says_how_many_seeds_it_stands_on() -> None:
    from rewardsmith.formatting import search_fitness

    assert search_fitness(0.9147, 0.0038) == "0.9147 ± 0.0038 s.e. (one seed, search budget)"
    assert search_fitness(0.9147, 0.0038, [0.9147, 0.9164]) == "0.9155 (mean of 2 seeds: 0.9147, 0.9164; search budget)"
    assert search_fitness(None, None, []) == "- (one seed, search budget)"


def test_a_third_seed_joins_its_repeat_and_the_floor_pools_every_seed(tmp_path) -> None:
    """A repeat holds n seeds: its estimate is the mean with variance sum(se²)/n² + sd²/n, and the pooled floor
    weighs each candidate's sample variance (less its mean se²) by n - 1, which for a pair is the old formula."""
    pair = Repeat("1.1", 1000, (0, 1), (2.0, 1.0), (0.1, 0.1), ((2.0,), (1.0,)))
    three = pair.with_seed(2, 1.5, 0.2, (1.5,))
    assert three.seeds == (0, 1, 2) and three.fitness == (2.0, 1.0, 1.5) and three.episodes[2] == (1.5,)
    mean, var = three.estimate(0.3)
    assert mean == pytest.approx(1.5) and var == pytest.approx((0.01 + 0.01 + 0.04) / 9 + 0.09 / 3)
    assert pair.estimate(0.3) == pytest.approx((1.5, 0.02 / 4 + 0.09 / 2))  # today's pair formula
    assert pooled_variance([pair]) == pytest.approx(((2.0 - 1.0) ** 2 - 0.01 - 0.01) / 2)
    other = Repeat("1.2", 1000, (0, 1), (0.5, 0.7), (0.1, 0.1))
    expected = (2 * (0.25 - 0.06 / 3) + 1 * (0.02 - 0.01)) / 3  # sample var 0.25 on 2 df; 0.02 on 1
    assert pooled_variance([three, other]) == pytest.approx(expected)
    path = tmp_path / "seed_spread.json"
    spread = SeedSpread.load(path)
    spread.add(pair)
    spread.add(three)  # replaces the pair of the same candidate and budget
    again = SeedSpread.load(path)
    assert again.repeats == [three] and again.floor(1000).most_seeds == 3
    assert "measured: 1 candidate x 2-3 seeds" in again.floor(1000).describe()


def test_the_finalists_still_within_noise_get_a_third_seed_once():
    """With finalist_seeds 3, the last rung's leader and rival, still within noise after their second seeds, are
    each trained once more; a clear leader gets no third seed; the default (2) never asks for one."""
    first = {"1.1": 0.90, "1.2": 0.89, "1.3": 0.1, "1.4": 0.05}
    later = {"1.1": [0.70, 0.72], "1.2": [0.88, 0.87]}  # 1.1's search seed was lucky

    def train(record, timesteps, resume):
        return record.model_copy(
            update=dict(status="trained", fitness=first[record.id], fitness_se=0.01, timesteps=timesteps)
        )

    def run(finalist_seeds: int, rival: float = 0.89) -> tuple[list, list, Evidence]:
        first["1.2"] = rival
        evidence, calls = Evidence(SeedSpread()), []

        def repeat(records, budget, seeds=2):
            calls.append(([r.id for r in records], seeds))
            spent = 0
            for r in records:
                existing = evidence.spread.repeat_of(r.id, budget)
                have = len(existing.seeds) if existing else 1
                if have >= seeds:
                    continue
                value = later[r.id][have - 1]
                evidence.spread.add(
                    existing.with_seed(have, value, 0.01)
                    if existing
                    else Repeat(r.id, budget, (0, 1), (r.fitness, value), (0.01, 0.01))
                )
                spent += budget
            return spent

        designed = [CandidateRecord(id=f"1.{j}", iteration=1, index=j, status="designed") for j in range(1, 5)]
        rungs = successive_halving(
            designed, train, [100, 400], evidence=evidence, repeat=repeat, finalist_seeds=finalist_seeds
        )
        return rungs, calls, evidence

    rungs, calls, evidence = run(3)
    assert calls[-1] == (["1.2", "1.1"], 3)  # after the second seeds the two are still close: one more each
    assert [len(evidence.spread.repeat_of(c, 400).seeds) for c in ("1.1", "1.2")] == [3, 3]
    assert pick(rungs[-1].trained, evidence=evidence).winner == "1.2"
    rungs, calls, _ = run(2)
    assert all(seeds == 2 for _, seeds in calls)  # the default: no third seed
    later["1.2"] = [0.2, 0.2]
    rungs, calls, evidence = run(3, rival=0.3)  # a clear leader: confirmed on a second seed, no third
    assert all(seeds == 2 for _, seeds in calls) and len(evidence.spread.repeat_of("1.1", 400).seeds) == 2


def test_a_runs_repeater_trains_one_more_seed_per_call_in_its_own_folder(tmp_path, monkeypatch) -> None:
    """`rung_repeater` (a run's RepeatRung): the second seed in `second_seed/<budget>/` on seed + 1, a third (asked
    for with seeds=3) in `third_seed/<budget>/` on seed + 2, added to the same repeat; asked again, nothing."""
    from types import SimpleNamespace

    from rewardsmith.config import RunConfig
    from rewardsmith.run_folder.folder import RunFolder
    from rewardsmith.search import rungs
    from rewardsmith.task import load_task

    spec = load_task("pendulum-swing-up")
    (tmp_path / "run").mkdir()
    folder = RunFolder.create(tmp_path / "run", RunConfig(task="pendulum-swing-up", seed=7), spec, "scripted:x")
    config = folder.config().resolve(spec)
    trained: list[tuple[str, int]] = []

    def fake_train(spec_path, reward_path, out_dir, *, timesteps, seed, **_):
        trained.append((out_dir.relative_to(folder.path).as_posix(), seed))
        value = {8: 0.5, 9: 0.6}[seed]
        return SimpleNamespace(error="", summary={"timesteps": timesteps}), SimpleNamespace(
            fitness_mean=value, fitness_se=0.01, fitness=[value]
        )

    monkeypatch.setattr(rungs, "train_and_evaluate", fake_train)
    quiet = SimpleNamespace(update=lambda *a, **k: None, log=lambda *a, **k: None)
    evidence = Evidence(SeedSpread())
    repeat = rungs.rung_repeater(folder, config, spec, SimpleNamespace(workers=1), quiet, evidence)
    record = rec("1.1", 0.7, 0.01, 400)
    assert repeat([record], 400) == 400 and repeat([record], 400) == 0
    assert repeat([record], 400, seeds=3) == 400 and repeat([record], 400, seeds=3) == 0
    assert trained == [("iter_1/cand_1/second_seed/400", 8), ("iter_1/cand_1/third_seed/400", 9)]
    kept = evidence.spread.repeat_of("1.1", 400) if evidence.spread else None
    assert kept is not None and kept.seeds == (7, 8, 9) and kept.fitness == (0.7, 0.5, 0.6)


def test_the_final_tables_floor_note_says_how_many_seeds_it_stands_on() -> None:
    from rewardsmith.search.selection import floor_note

    old = {"sd": 0.2, "how": "measured", "pairs": 2, "budget": 400}  # a summary.json written before round 35
    assert floor_note(old) == "; noise includes seed sd 0.2 (measured: 2 candidates x 2 seeds)"
    assert floor_note({**old, "most_seeds": 3}).endswith("(measured: 2 candidates x 2-3 seeds)")
    assert floor_note({"sd": 0.5, "how": "prior"}) == "; noise includes seed sd 0.5 (prior: the spec's calibration record)"
    assert floor_note({"how": "none"}) == "; seed-to-seed spread not measured (evaluation noise only)"


def test_the_new_best_line_gives_the_number_the_pick_compared():
    """Seen on a fresh clone's first run: 'new best: 2.1, search fitness 0.025 ± 0.002 s.e.' (its first seed), then
    'its mean is higher too: 0.03183 vs 0.03117 (over both seeds)'. The line now leads with the mean it ranked by."""
    from rewardsmith.search.session import best_line

    records = [rec("1.1", 0.02567, 0.0018, 20480), rec("2.1", 0.025, 0.002, 20480)]
    spread = SeedSpread([Repeat("1.1", 20000, (0, 1), (0.02567, 0.03667), (0.0018, 0.002)),
                         Repeat("2.1", 20000, (0, 1), (0.025, 0.03866), (0.002, 0.002))])
    line = best_line(records[1], records, "lcb", Evidence(spread))
    assert line.startswith("new best: 2.1, search fitness 0.03183 (mean of 2 seeds: 0.025, 0.03866) at 20,480 steps")
    alone = best_line(records[0], records[:1], "lcb", Evidence(SeedSpread()))
    assert alone == "new best: 1.1, search fitness 0.02567 ± 0.0018 s.e. at 20,480 steps"


def test_the_status_line_marks_a_best_fitness_that_is_a_mean_of_seeds():
    from rewardsmith.search.live import describe_status

    line = describe_status({"iteration": 2, "best_candidate": "2.1", "best_fitness": 0.03183, "best_seeds": 2,
                            "best_steps": 20480})
    assert "best 2.1: search fitness 0.03183 x2 at 20,480 steps" in line
    assert "x1" not in describe_status({"best_candidate": "1.1", "best_fitness": 0.5, "best_seeds": 0})
