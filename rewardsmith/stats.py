"""Small statistics that the stages, the search and the workers share: whether a quantity stayed constant, a mean
with its standard error, a gap in standard errors of the difference (Welch), and Spearman's rank correlation. Kept here, below both, so a stage need not import the
search (or another stage) to use them."""

from __future__ import annotations

import math
import statistics

import numpy as np

CONSTANT_RTOL, CONSTANT_ATOL = 1e-6, 1e-9
"""How little a quantity may vary, relative to its mean and absolutely, to count as constant."""


def is_constant(std: float, mean: float) -> bool:
    """Whether values with this standard deviation and mean did not vary (`CONSTANT_RTOL`, `CONSTANT_ATOL`)."""
    return std <= CONSTANT_ATOL + CONSTANT_RTOL * abs(mean)


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


CONSTANT = 1e-12
"""A side whose values span no more than this is constant: its ranks would order float noise."""


def ranks(values: np.ndarray) -> np.ndarray:
    """0-based ranks, ties given their average rank."""
    _, inverse, counts = np.unique(values, return_inverse=True, return_counts=True)
    starts = np.cumsum(counts) - counts
    return (starts + (counts - 1) / 2.0)[inverse]


def spearman(x: np.ndarray, y: np.ndarray) -> float | None:
    """Spearman's rank correlation (ties averaged); None for fewer than three pairs (two always give +-1) or when
    either side is constant."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if len(x) < 3 or np.ptp(x) <= CONSTANT or np.ptp(y) <= CONSTANT:
        return None
    return float(np.corrcoef(ranks(x), ranks(y))[0, 1])
