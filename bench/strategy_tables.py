"""The tables of `bench/strategies.py` beyond the side-by-side one: the labels earned at the full budget, each
rung's rank correlation with the full budget, the screen at the default's first cut, the fixed cost per job."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import numpy as np
from strategies import LABELS, label_of, pool_entry  # bench/ is on sys.path when strategies.py runs as a script

from rewardsmith.stats import spearman


def label_table(rows: list[dict]) -> str:
    """Trusted fitness per label at the full budget (from the eureka runs): the labels earned."""
    lines = [f"{'task':34} {'label':16} {'n':>3} {'fitness at full budget (mean ± sd)':>36}"]
    for task in dict.fromkeys(r["task"] for r in rows):
        per = defaultdict(list)
        for r in rows:
            if r["task"] == task and r["strategy"] == "eureka":
                for lab, fitness in r["full_budget"]:
                    per[lab].append(fitness)
        for lab, values in sorted(per.items(), key=lambda kv: -np.mean(kv[1])):
            lines.append(f"{task:34} {lab:16} {len(values):>3} {np.mean(values):>26.3f} ± {np.std(values):.3f}")
    return "\n".join(lines)


def fitness_by_entry(run: Path, task: str, candidates: list[dict]) -> dict[str, float]:
    """{pool file name: trusted fitness} of a run's candidates (`id`, `fitness` dicts, as halving.json lists them)."""
    found = {}
    for c in candidates:
        reward = run / "iter_1" / f"cand_{c['id'].split('.')[1]}" / "reward.py"
        entry = pool_entry(reward.read_text(encoding="utf-8"), task) if reward.is_file() else None
        if entry is not None and c.get("fitness") is not None:
            found[entry.name] = c["fitness"]
    return found


def rung_signal(rows: list[dict], out: Path) -> str:
    """How well each rung of the default strategy predicts the full budget: Spearman's rho between a rung's trusted
    fitness and the same reward's trusted fitness after Eureka's full training on the same seed (so the rung's
    training is, up to floating-point nondeterminism, the first part of that one), averaged over the seeds with both run folders. Near 0, the rung's
    cut is a coin toss whatever its noise; a task needs a longer first rung before halving can pay off."""
    lines = [f"{'task':34} {'rung':>4} {'steps':>7} {'seeds':>5} {'rho vs full budget (mean, each)':>34}"]
    for task in dict.fromkeys(r["task"] for r in rows):
        per_rung: dict[tuple[int, int], list[float]] = defaultdict(list)
        for r in rows:
            default, eureka = out / task / f"default_seed{r['seed']}", out / task / f"eureka_seed{r['seed']}"
            if r["task"] != task or r["strategy"] != "default" or not (eureka / "iter_1").is_dir():
                continue
            halving = json.loads((default / "iter_1" / "halving.json").read_text())
            trained = [json.loads(p.read_text()) for p in (eureka / "iter_1").glob("cand_*/candidate.json")]
            full = fitness_by_entry(eureka, task, [c for c in trained if c.get("status") == "trained"])
            for number, rung in enumerate(halving["rungs"], 1):
                at_rung = fitness_by_entry(default, task, rung["candidates"])
                common = [name for name in at_rung if name in full]
                rho = spearman(np.array([at_rung[n] for n in common]), np.array([full[n] for n in common]))
                if len(common) >= 4 and rho is not None:
                    per_rung[(number, rung["timesteps"])].append(rho)
        for (number, steps), values in sorted(per_rung.items()):
            each = " ".join(f"{v:+.2f}" for v in values)
            lines.append(f"{task:34} {number:>4} {steps:>7,} {len(values):>5} {np.mean(values):>+8.2f} ({each})")
    return "\n".join(lines)


def screen_table(rows: list[dict], out: Path) -> str:
    """The screen at the default strategy's first cut, per task and label: candidates judged, passed and rejected
    (a rejected reward goes behind the passed ones at that cut). A good reward rejected is a false reject; a
    reward-hacking or weak one passed, a false pass."""
    lines = [f"{'task':34} {'label':16} {'judged':>6} {'passed':>6} {'rejected':>8}  accuracy (mean; min-max)"]
    for task in dict.fromkeys(r["task"] for r in rows):
        per: dict[str, list[tuple[bool, float]]] = defaultdict(list)
        for r in rows:
            path = out / task / f"default_seed{r['seed']}" / "iter_1" / "halving.json"
            if r["task"] != task or r["strategy"] != "default" or not path.is_file():
                continue
            first = json.loads(path.read_text())["rungs"][0]
            for c in first["candidates"]:
                reward = path.parent / f"cand_{c['id'].split('.')[1]}" / "reward.py"
                if c.get("screen") and c["screen"].get("accuracy") is not None and reward.is_file():
                    per[label_of(reward.read_text(encoding="utf-8"), task)].append(
                        (c["screen"]["passed"], c["screen"]["accuracy"])
                    )
        for lab in LABELS:
            if per.get(lab):
                passed = sum(p for p, _ in per[lab])
                acc = [a for _, a in per[lab]]
                lines.append(
                    f"{task:34} {lab:16} {len(acc):>6} {passed:>6} {len(acc) - passed:>8}  "
                    f"{np.mean(acc):.2f} ({min(acc):.2f}-{max(acc):.2f})"
                )
    return "\n".join(lines)


def fixed_cost(rows: list[dict]) -> str:
    """Fit wall = fixed + steps / speed over every trained job of every run."""
    jobs = [j for r in rows for j in r["jobs"]]
    if len({s for s, _ in jobs}) < 2:
        return "fixed cost per job: not enough distinct job sizes to fit"
    steps, wall = np.array([s for s, _ in jobs], float), np.array([w for _, w in jobs], float)
    slope, intercept = np.polyfit(steps, wall, 1)
    return (
        f"fixed cost per job (training + evaluation worker, fitted over {len(jobs)} jobs): {intercept:.1f} s; "
        f"then {1 / slope if slope > 0 else float('inf'):,.0f} steps/s"
    )


def screen_errors(task: str, rows: list[dict], out: Path) -> tuple[str, str]:
    """(false rejects, false passes) of the screen at the default's first cut on one pool: good rejected / good
    judged, and weak or reward-hacking passed / judged."""
    verdicts: list[tuple[str, bool]] = []
    for r in rows:
        path = out / task / f"default_seed{r['seed']}" / "iter_1" / "halving.json"
        if r["task"] != task or r["strategy"] != "default" or not path.is_file():
            continue
        for c in json.loads(path.read_text())["rungs"][0]["candidates"]:
            reward = path.parent / f"cand_{c['id'].split('.')[1]}" / "reward.py"
            if c.get("screen") and c["screen"].get("accuracy") is not None and reward.is_file():
                verdicts.append((label_of(reward.read_text(encoding="utf-8"), task), bool(c["screen"]["passed"])))
    good = [p for lab, p in verdicts if lab == "good"]
    bad = [p for lab, p in verdicts if lab in ("weak", "reward-hacking")]
    return f"{len(good) - sum(good)}/{len(good)}", f"{sum(bad)}/{len(bad)}"


def goals(rows: list[dict], out: Path) -> str:
    """Per pool, issue 23's goal: the default's hit rate (good reward returned) >= 0.9 and >= Eureka's, at <= 0.25 of
    Eureka's env steps; with the screen's false rejects and false passes at the first cut."""
    head = (
        f"{'pool':34} {'seeds':>5} {'hit default':>11} {'hit eureka':>10} {'steps ratio':>11} "
        f"{'screen false rej':>16} {'false pass':>10}  goal"
    )
    lines = [head, "-" * len(head)]
    for task in dict.fromkeys(r["task"] for r in rows):
        by = {s: [r for r in rows if r["task"] == task and r["strategy"] == s] for s in ("default", "eureka")}
        hit = {s: (sum(r["label"] == "good" for r in g) / len(g) if g else None) for s, g in by.items()}
        steps = {s: (np.mean([r["search_steps"] + r["final_steps"] for r in g]) if g else None) for s, g in by.items()}
        ratio = steps["default"] / steps["eureka"] if steps["default"] and steps["eureka"] else None
        rejects, passes = screen_errors(task, rows, out)
        met = (
            "-"
            if hit["default"] is None or hit["eureka"] is None or ratio is None
            else "met"
            if hit["default"] >= 0.9 and hit["default"] >= hit["eureka"] and ratio <= 0.25
            else "NOT met"
        )
        fmt = lambda v: "-" if v is None else f"{v:.2f}"  # noqa: E731
        lines.append(
            f"{task:34} {len(by['default']):>5} {fmt(hit['default']):>11} {fmt(hit['eureka']):>10} {fmt(ratio):>11} "
            f"{rejects:>16} {passes:>10}  {met}"
        )
    return "\n".join(lines)
