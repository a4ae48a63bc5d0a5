"""Noise-aware selection (rewardsmith.search.selection): the lower confidence bound beats a lucky mean."""

from __future__ import annotations

from rewardsmith.run_folder.records import CandidateRecord
from rewardsmith.search.selection import Pick, best_record, describe_selection, lower_bound, pick, ranked


def rec(cid: str, fitness: float | None, se: float | None = None, timesteps: int = 1000, status: str = "trained"):
    iteration, index = (int(x) for x in cid.split("."))
    return CandidateRecord(
        id=cid,
        iteration=iteration,
        index=index,
        status=status,
        fitness=fitness,
        fitness_se=se,
        episodes=5 if se is not None else 0,
        timesteps=timesteps,
    )


def test_higher_lower_bound_beats_a_lucky_mean():
    lucky = rec("1.1", 1.0, se=0.8)  # high mean from a few wild episodes: bound 0.2
    steady = rec("1.2", 0.7, se=0.05)  # bound 0.65
    assert best_record([lucky, steady]).id == "1.2"
    assert lower_bound(steady) > lower_bound(lucky)
    # Eureka's rule is the plain mean, so the same records pick the lucky one
    assert best_record([lucky, steady], rule="mean").id == "1.1"


def test_a_longer_trained_rung_survivor_outranks_a_short_one():
    short = rec("1.1", 5.0, se=0.1, timesteps=1000)
    full = rec("1.2", 1.0, se=0.1, timesteps=8000)
    assert [r.id for r in ranked([short, full])] == ["1.2", "1.1"]


def test_untrained_and_before_are_excluded():
    rows = [rec("1.1", 0.5, 0.1), rec("2.1", 9.0, 0.1), rec("1.2", None, status="rejected")]
    assert best_record(rows, before=2).id == "1.1"
    assert best_record([rec("1.2", None, status="failed")]) is None


def test_pick_says_whether_the_winner_is_distinguishable():
    close = pick([rec("1.1", 1.0, 0.2), rec("1.2", 0.9, 0.2)])
    assert (close.winner, close.runner_up, close.distinguishable) == ("1.1", "1.2", False)
    assert "NOT distinguishable at 1 se" in close.describe()
    # its bar is said: the end-of-search signal judges "within noise" at 2 se, so a pick distinguishable at 1 se
    # beside "the candidates are within 2 standard errors of each other" is not a contradiction
    assert "(distinguishable at 1 se; rule lcb)" in pick([rec("1.1", 1.0, 0.01), rec("1.2", 0.5, 0.01)]).describe()
    clear = pick([rec("1.1", 1.0, 0.01), rec("1.2", 0.5, 0.01)])
    assert clear.distinguishable is True and abs(clear.margin - 0.5) < 1e-9
    alone = pick([rec("1.1", 1.0, 0.01)])
    assert alone.runner_up is None and alone.distinguishable is None
    assert alone.describe() == "1.1 (the only trained candidate: no runner-up)"
    # halving stopped 1.2 at a shorter rung: it is not compared, and the line says why there is no runner-up
    cut = pick([rec("1.1", 1.0, 0.01, timesteps=20000), rec("1.2", 0.5, 0.01, timesteps=5000)])
    assert cut.runner_up is None and cut.shorter == 1
    assert describe_selection(cut.as_dict()) == (
        "1.1 (the only candidate trained to its budget; 1 other stopped at a shorter rung, so not compared)"
    )
    # without error bars the verdict is unknown, not a false "distinguishable"
    assert pick([rec("1.1", 1.0), rec("1.2", 0.5)]).distinguishable is None


def test_a_lead_just_over_the_noise_prints_two_different_numbers():
    # the README's own run printed "margin 0.00467 vs noise 0.00467 (distinguishable)": true, but unreadable
    line = Pick("1.2", "1.1", 0.0046721, 0.0046684, True).describe()
    assert "margin 0.004672 vs noise 0.004668 (distinguishable" in line
    assert "margin 0.5 vs noise 0.1" in Pick("1.2", "1.1", 0.5, 0.1, True).describe()


def test_a_winner_with_the_lower_mean_says_why_it_won():
    # the README's run picked 1.1 (0.0303, tight) over 1.2 (0.0327, wide) by the lower bound and printed
    # "margin -0.00233 vs noise 0.00605", a negative margin with no explanation
    line = pick([rec("1.1", 0.0303, 0.001), rec("1.2", 0.0327, 0.006)]).describe()
    assert line.startswith("1.1 over 1.2: its mean is lower by 0.0024, but its lower confidence bound is higher")
    assert "NOT distinguishable" in line and "-0.0" not in line
