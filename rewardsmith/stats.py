"""Small statistics that the stages and the search share: a mean with its standard error, and a gap in standard
errors of the difference (Welch). Kept here, below both, so a stage need not import the search to use them."""

from __future__ import annotations

import math
import statistics


def mean_se(values: list[float]) -> tuple[float, float]:
    """Mean and standard error of the mean (0 for fewer than two values)."""
    if not values:
        return math.nan, math.nan
    mean = statistics.fmean(values)
    return mean, statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else 0.0


def gap_in_se(a: list[float], b: list[float]) -> float:
    """(mean a - mean b) in standard errors of the difference (Welch); +-inf when both are exact and differ."""
    (ma, sa), (mb, sb) = mean_se(a), mean_se(b)
    se = math.hypot(sa, sb)
    if se > 0:
        return (ma - mb) / se
    return 0.0 if ma == mb else math.copysign(math.inf, ma - mb)
