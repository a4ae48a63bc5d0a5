"""Where a replayed search's env steps go (`bench/replay_strategies.py`): by category (`SPENT`), as fractions of the
Eureka-style strategy's search, with the last rung's size, the final retraining's extra steps, whether a pick could
have been made at the rung before the last, and the fewest steps the rungs allow at all (`fewest_steps`).
"""

from __future__ import annotations

import statistics

from rewardsmith.search.halving import Rung, survivors

SPENT = ("first rung", "later rungs", "revival", "repeats below the last rung", "repeats at the last rung")
"""Where a search's env steps go (`spent`)."""


def spent(rungs: list[Rung], full: int) -> dict[str, int]:
    """A search's env steps by where they went (`SPENT`): the first rung's trainings, the survivors' on later rungs,
    the candidate trained on from an earlier rung to meet a lone survivor, and the second-seed repeats below the full
    budget (they measure the floor the cuts use) and at it (they decide the pick)."""
    out = dict.fromkeys(SPENT, 0)
    reached: dict[str, int] = {}
    for k, rung in enumerate(rungs):
        revived = next((r for r in rung.trained if r.id == rung.revived and r.status == "trained"), None)
        revival = revived.timesteps - reached[revived.id] if revived is not None else 0
        out["first rung" if k == 0 else "later rungs"] += rung.steps - revival
        out["revival"] += revival
        out["repeats at the last rung" if rung.timesteps == full else "repeats below the last rung"] += (
            rung.repeat_steps
        )
        reached.update({r.id: r.timesteps for r in rung.trained if r.status == "trained"})
    return out


def where_steps_went(outcomes: list, eureka_steps: float, final_seeds: int) -> str:
    """The replayed searches' (`replay_strategies.Outcome`) mean steps by category (`SPENT`) as fractions of Eureka's
    search, the last rung's size, the final retraining's extra steps, and whether a pick could have been made at the
    rung before the last."""
    parts = [f"{k} {statistics.fmean(o.spent.get(k, 0) for o in outcomes) / eureka_steps:.3f}" for k in SPENT]
    final = statistics.fmean(o.run_steps(final_seeds) - o.steps for o in outcomes) / eureka_steps
    held = statistics.fmean(o.last_held for o in outcomes)
    text = f"steps (of Eureka's search): {' | '.join(parts)}; last rung held {held:.2f}; final retraining +{final:.3f}"
    before = [o.before_last for o in outcomes if o.before_last is not None]
    if before:
        good = sum(lab == "good" for lab, _ in before)
        clear = [lab for lab, c in before if c]
        text += (
            f"; rung before the last: leader good in {good}/{len(before)}, distinguishable from all there in "
            f"{len(clear)} ({sum(lab == 'good' for lab in clear)} good)"
        )
    return text


def fewest_steps(candidates: int, budgets: list[int], keep: float) -> int:
    """The fewest env steps the rungs `budgets` allow: every candidate at the first rung, then only the `keep`
    fraction on (at least two, so two reach the last rung), none kept on noise, no second seed, nothing failed."""
    steps, n = candidates * budgets[0], candidates
    for before, budget in zip(budgets, budgets[1:]):
        n = survivors(n, keep)
        steps += n * (budget - before)
    return steps
