"""Converged labels: which pool rewards are good when trained to convergence, by a rule fixed before the numbers.

Reads a table of converged trainings (`bench/replay_tables/converged/<task>.jsonl`: rows {file, label, seed, budgets,
fitness, se, episodes, and success since round 23} written by `bench/rung_rho.py --fractions 1`, one budget) and
labels each reward (`verdicts`):

- m_r, the mean of its trainings; s_r^2, their sample variance (seeds and episodes both in it); s_p^2, the mean of
  s_r^2 over the pool; SE_r^2 = max(s_r^2, s_p^2, mean e_ri^2) / n (e_ri: each training's evaluation se);
- good when not distinguishable from the best reward b (m_b - m_r <= Z_LABEL sqrt(SE_b^2 + SE_r^2)) AND
  distinguishably better than the random policy (m_r - m_random > Z_LABEL sqrt(SE_r^2 + se_random^2): the random
  policy's (mean, se) pinned beside the table, `<task>.random.json`, copied from the spec's calibration record by
  `--pin`, so a later re-calibration cannot move the labels unseen) AND, where every row records its success rate
  (`success`, written by `bench/rung_rho.py` since round 23), its success rate not distinguishably below the
  best's: the same test on the trainings' success rates (each training's se from its episodes,
  sqrt(p(1-p)/episodes)); "not good" otherwise, and when any training failed.

Why this rule is in bench/replay_tables/README.md ("Converged labels"). `bench/replay_strategies.py --labels
converged` replays the strategies against these labels.

    PYTHONPATH=$PWD .venv/bin/python bench/converged_labels.py --task reacher-reach
    PYTHONPATH=$PWD .venv/bin/python bench/converged_labels.py --task reacher-reach --pin   # (re)pin the random policy
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import statistics
import sys
from dataclasses import dataclass
from pathlib import Path

from rewardsmith.task import load_task

CONVERGED = Path(__file__).parent / "replay_tables" / "converged"
Z_LABEL = 2.0
"""Standard errors of the difference: the bar of both clauses of the rule."""


@dataclass(frozen=True)
class Verdict:
    """One reward's converged label and the numbers it rests on."""

    file: str
    hand: str
    fitness: tuple[float | None, ...]
    mean: float | None
    se: float | None
    label: str
    """ "good" or "not good"."""
    why: str


def load_rows(path: Path) -> list[dict]:
    """The rows of a converged table; all on one budget."""
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    if len({tuple(r["budgets"]) for r in rows}) > 1:
        raise SystemExit(f"{path}: rows on different budgets; one converged table per budget")
    return rows


def spread(values: list[float]) -> float:
    """The sample variance of a reward's trainings (0 for one)."""
    return statistics.variance(values) if len(values) > 1 else 0.0


def mean_and_se(trainings: dict[str, list[tuple[float, float]]]) -> dict[str, tuple[float, float]]:
    """Per reward, from its trainings' (value, that training's se): the mean, and SE_r = sqrt(max(s_r^2, s_p^2,
    mean e_ri^2) / n) with s_p^2 the pool's mean sample variance (module docstring)."""
    pooled = statistics.fmean(spread([v for v, _ in t]) for t in trainings.values()) if trainings else 0.0
    out = {}
    for f, t in trainings.items():
        values = [v for v, _ in t]
        episode = statistics.fmean(e**2 for _, e in t)
        out[f] = statistics.fmean(values), math.sqrt(max(spread(values), pooled, episode) / len(values))
    return out


def success_trainings(runs: dict[str, list[dict]]) -> dict[str, list[tuple[float, float]]] | None:
    """Per reward, each training's (success rate, its binomial se over the episodes); None unless every row records
    its success rate (tables from before the `success` column have no success clause)."""
    rows = [r for rs in runs.values() for r in rs]
    if not rows or any(r.get("success") is None or r["success"][-1] is None for r in rows):
        return None

    def rate_and_se(row: dict) -> tuple[float, float]:
        p = float(row["success"][-1])
        return p, math.sqrt(p * (1 - p) / max(row["episodes"][-1], 1))

    return {f: [rate_and_se(r) for r in rs] for f, rs in runs.items()}


def verdicts(rows: list[dict], random: tuple[float, float], z: float = Z_LABEL) -> dict[str, Verdict]:
    """Each reward's converged label under the rule (module docstring), keyed by pool file."""
    files = sorted({r["file"] for r in rows})
    runs = {f: [r for r in rows if r["file"] == f] for f in files}
    values = {f: [r["fitness"][-1] for r in runs[f]] for f in files}
    complete = [f for f, vs in values.items() if vs and all(v is not None for v in vs)]
    stats = mean_and_se({f: [(float(r["fitness"][-1]), float(r["se"][-1] or 0.0)) for r in runs[f]] for f in complete})
    success = success_trainings({f: runs[f] for f in complete})
    success_stats = mean_and_se(success) if success is not None else {}
    best = max(stats, key=lambda f: stats[f][0]) if stats else None
    out = {}
    for f in files:
        hand = runs[f][0]["label"]
        if f not in stats or best is None:
            out[f] = Verdict(f, hand, tuple(values[f]), None, None, "not good", "a training failed")
            continue
        (m, se), (mb, seb) = stats[f], stats[best]
        behind, noise = mb - m, z * math.sqrt(seb**2 + se**2)
        above, noise_random = m - random[0], z * math.sqrt(se**2 + random[1] ** 2)
        if success_stats:
            (p, sp), (pb, spb) = success_stats[f], success_stats[best]
            less, noise_success = pb - p, z * math.sqrt(spb**2 + sp**2)
        else:
            less, noise_success = 0.0, 0.0
        if behind > noise:
            label, why = "not good", f"behind the best by {behind:.3g} > {noise:.3g}"
        elif above <= noise_random:
            label, why = "not good", f"within {noise_random:.3g} of random ({above:+.3g})"
        elif less > noise_success:
            label, why = "not good", f"succeeds less than the best by {less:.2f} > {noise_success:.2f}"
        else:
            label, why = "good", f"behind the best by {behind:.3g} <= {noise:.3g}; above random by {above:.3g}"
        out[f] = Verdict(f, hand, tuple(values[f]), m, se, label, why)
    return out


def labels(path: Path) -> dict[str, str]:
    """{pool file: converged label} of a converged table, against its pinned random policy (`pinned_random`)."""
    return {f: v.label for f, v in verdicts(load_rows(path), pinned_random(path)).items()}


def gap_scores(path: Path, seeds: tuple[int, ...] | None = None) -> dict[str, float]:
    """{pool file: (m_r - m_random) / (m_best - m_random)}: the share of the gap from the pinned random policy to the
    pool's best reward that each reward closes, trained to convergence (on `seeds` of the table's label seeds, default
    all). A score with no bar: one reward crossing a label's bar by a hair moves it by a hair. A reward with a
    failed training scores 0, as random."""
    rows = [r for r in load_rows(path) if seeds is None or r["seed"] in seeds]
    random = pinned_random(path)
    means = {f: v.mean for f, v in verdicts(rows, random).items()}
    top = max((m for m in means.values() if m is not None), default=random[0])
    span = top - random[0]
    return {f: 0.0 if m is None or span <= 0 else (m - random[0]) / span for f, m in means.items()}


def subset_labels(path: Path, k: int) -> dict[tuple[int, ...], dict[str, str]]:
    """{label seeds: {pool file: label}} for every k-seed subset of the table's training seeds, each by the same rule
    and pinned random policy: how much the labels depend on which seeds earned them."""
    rows, random = load_rows(path), pinned_random(path)
    seeds = sorted({r["seed"] for r in rows})
    if not 1 <= k <= len(seeds):
        raise SystemExit(f"{path}: {k}-seed subsets of {len(seeds)} training seeds")
    return {
        subset: {f: v.label for f, v in verdicts([r for r in rows if r["seed"] in subset], random).items()}
        for subset in itertools.combinations(seeds, k)
    }


def pin_path(table: Path) -> Path:
    """Where a converged table's random-policy reference is pinned: `<task>.random.json` beside it."""
    return table.with_name(f"{table.stem}.random.json")


def pinned_random(table: Path) -> tuple[float, float]:
    """(mean, se) of the random policy pinned for `table` (`--pin`); an error when none is."""
    pin = pin_path(table)
    if not pin.is_file():
        raise SystemExit(f"{table}: no pinned random policy ({pin.name}); pin the spec's with --pin")
    mean, se = json.loads(pin.read_text(encoding="utf-8"))["random"]
    return float(mean), float(se)


def pin(table: Path) -> list[str]:
    """Pin the spec's calibration record of the random policy beside `table`; lines saying which labels moved."""
    new = random_reference(table.stem)
    old = pinned_random(table) if pin_path(table).is_file() else None
    rows = load_rows(table)
    moved = [] if old is None else _moved(verdicts(rows, old), verdicts(rows, new))
    record = {"random": list(new), "from": f"envs/{table.stem}.toml [calibration] random"}
    pin_path(table).write_text(json.dumps(record) + "\n", encoding="utf-8")
    return [f"pinned {new[0]:.4g} ± {new[1]:.2g} (was {'none' if old is None else f'{old[0]:.4g} ± {old[1]:.2g}'})"] + (
        moved or ["no label moved"]
    )


def _moved(before: dict[str, Verdict], after: dict[str, Verdict]) -> list[str]:
    return [f"{f}: {before[f].label} -> {after[f].label}" for f in before if before[f].label != after[f].label]


def random_reference(task: str) -> tuple[float, float]:
    """(mean, se) of the random policy's trusted fitness: the spec's calibration record."""
    spec = load_task(task)
    if spec.calibration is None or len(spec.calibration.random) != 2:
        raise SystemExit(f"{task}: the spec has no calibrated random-policy fitness for the converged-label rule")
    return float(spec.calibration.random[0]), float(spec.calibration.random[1])


def report(rows: list[dict], random: tuple[float, float]) -> list[str]:
    """The table: per reward, best first, its trainings, mean ± SE, share of the random-to-best gap, labels."""
    found = verdicts(rows, random)
    ranked = sorted(found.values(), key=lambda v: -(v.mean if v.mean is not None else -math.inf))
    top = ranked[0].mean if ranked and ranked[0].mean is not None else None
    seeds = sorted({r["seed"] for r in rows})
    lines = [
        f"budget {rows[0]['budgets'][-1]:,}, training seeds {seeds}, random policy {random[0]:.4g} ± {random[1]:.2g}",
        f"{'reward':34} {'hand':15} {'trainings':>20} {'mean ± SE':>18} {'gap':>5} {'converged':>9}  why",
    ]
    for v in ranked:
        each = " ".join("fail" if x is None else f"{x:.4f}" for x in v.fitness)
        mean = "-" if v.mean is None else f"{v.mean:.4f} ± {v.se:.4f}"
        gap = (
            "-"
            if v.mean is None or top is None or top == random[0]
            else f"{(v.mean - random[0]) / (top - random[0]):.2f}"
        )
        lines.append(f"{v.file[:34]:34} {v.hand:15} {each:>20} {mean:>18} {gap:>5} {v.label:>9}  {v.why}")
    agree = sum((v.hand == "good") == (v.label == "good") for v in found.values())
    lines.append(
        f"good: {sum(v.label == 'good' for v in found.values())} of {len(found)}; the hand label agrees (good vs "
        f"not) on {agree} of {len(found)}"
    )
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--task", default="reacher-reach")
    parser.add_argument("--table", type=Path, default=None, help=f"default {CONVERGED}/<task>.jsonl")
    parser.add_argument("--pin", action="store_true", help="pin the spec's random-policy record beside the table")
    args = parser.parse_args(argv)
    table = args.table or CONVERGED / f"{args.task}.jsonl"
    if args.pin:
        print("\n".join(pin(table)))
    print("\n".join(report(load_rows(table), pinned_random(table))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
