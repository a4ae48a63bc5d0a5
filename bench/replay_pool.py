"""What a replay table says about its pool before any search runs: how each reward's hand label compares with
its converged fitness, and how well each shorter budget's ranking predicts the converged one (Spearman's rho).
Used by `bench/replay_strategies.py`; `table` is its `Table` (rows, files, label, seeds, row, converged).
"""

from __future__ import annotations

import math
import statistics

import numpy as np

from rewardsmith.stats import spearman


def seed_rhos(table, k: int, files: list[str]) -> list[float]:
    """Per recorded seed, Spearman's rho between budget `k`'s fitness and the converged ranking (the full budget
    averaged over the OTHER seeds) over `files` (repeats allowed: a bootstrap resample); seeds with fewer than 4
    distinct rewards are left out."""
    per = []
    for seed in sorted({r["seed"] for r in table.rows}):
        pairs = [
            (r["fitness"][k], c)
            for f in files
            if seed in table.seeds(f)
            and (r := table.row(f, seed))["fitness"][k] is not None
            and (c := table.converged(f, leave_out=seed)) is not None
        ]
        if len({f for f in files if seed in table.seeds(f)}) >= 4:
            rho = spearman(np.array([a for a, _ in pairs]), np.array([b for _, b in pairs]))
            if rho is not None:
                per.append(rho)
    return per


def rung_rho(table, resamples: int = 200) -> list[str]:
    """Per budget below the full one: rho with the converged ranking (`seed_rhos`) over all rewards and among the
    good ones: the mean over seeds, its standard error by a bootstrap over the pool's rewards (as bench/rung_rho.py),
    and each seed's value."""
    rng = np.random.default_rng(0)
    lines = []
    for k, budget in enumerate(table.budgets[:-1]):
        cells = []
        for good_only in (False, True):
            files = [f for f in table.files if not good_only or table.label(f) == "good"]
            per = seed_rhos(table, k, files)
            boot = [seed_rhos(table, k, list(rng.choice(files, len(files)))) for _ in range(resamples)]
            means = [statistics.fmean(b) for b in boot if b]
            se = statistics.stdev(means) if len(means) > 1 else math.nan
            each = " ".join(f"{v:+.2f}" for v in per)
            cells.append(f"{statistics.fmean(per):+.2f} ± {se:.2f} ({each})" if per else "-")
        lines.append(
            f"  rung {budget:>7,} ({budget / table.budgets[-1]:.4g}): rho all {cells[0]}; among good {cells[1]}"
        )
    return lines


def labels_earned(table) -> list[str]:
    """The labels against the full budget: per label, the converged fitness (mean over seeds) of each reward."""
    lines = []
    for lab in ("good", "weak", "reward-hacking"):
        values = [(f, table.converged(f)) for f in table.files if table.label(f) == lab]
        text = ", ".join(
            f"{f.split('_')[0]} {v:.4g}" for f, v in sorted(values, key=lambda x: -(x[1] or -1e9)) if v is not None
        )
        lines.append(f"  {lab:14} {text}")
    good = [v for f in table.files if table.label(f) == "good" and (v := table.converged(f)) is not None]
    other = [(f, v) for f in table.files if table.label(f) != "good" and (v := table.converged(f)) is not None]
    above = [f.split("_")[0] for f, v in other if good and v > min(good)]
    best = max(good + [v for _, v in other])
    lines.append(
        f"  labels vs the full budget (mean over seeds): {len(above)} of {len(other)} weak/hacking rewards above the "
        f"worst good one ({', '.join(above) or 'none'}); the best reward is "
        + ("good" if good and max(good) == best else "NOT good")
    )
    return lines
