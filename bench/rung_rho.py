"""Rung rank correlations: how well a short first rung predicts the full budget's ranking, per candidate fraction.

Every runnable reward of a labelled pool (bench/pools/<task>/: the good, weak and reward-hacking samples and
repair replies; buggy and too-slow ones never reach a rung) is trained on each seed as successive halving trains a
survivor: to the first fraction of the budget, evaluated by the trusted evaluation worker, then resumed from its own
weights to the next fraction, and so on to the full budget (`--fractions`). So the fitness at each fraction is what
a first rung of that length would see, and the full budget's is the ranking a rung is meant to predict.

Printed per fraction: Spearman's rho between the fraction's and the full budget's fitness, over all candidates and
among the good ones only (the issue's "+0.69 over all, +0.03 among the good" at 1/16), as the mean over seeds and
its standard error from a bootstrap over the pool's rewards. The rows go to OUT/<task>/rows.jsonl (a re-run keeps the
candidates and seeds already done), and each training's folder keeps its evaluation episodes (`eval/`).

    REWARDSMITH_ALLOW_UID0=1 nice -n 10 .venv/bin/python bench/rung_rho.py --task inverted-double-pendulum-balance \
        --seeds 2 --timesteps 16384 --workers 2

`rewardsmith.search.rung_evidence` records the figures this prints (one pool to choose a family's first rung,
another to check it).
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
from strategies import label, pool  # bench/ is on sys.path when this file runs as a script

from rewardsmith.search.halving import first_rung_minimum, rung_budgets, rung_episodes
from rewardsmith.search.training import train_and_evaluate
from rewardsmith.stats import spearman
from rewardsmith.task import load_task
from rewardsmith.workers.executor import LocalExecutor

RUNNABLE = ("good", "weak", "reward-hacking")
FRACTIONS = "0.0625,0.125,0.25,0.5,1"


def recorded_point(row: dict, steps: int, folder: Path) -> tuple[float, float | None, int, float | None]:
    """(fitness, se, episodes, success rate) of an earlier table's row at `steps`: the row's own, else its
    evaluation's file (rows from before the success column read it from there)."""
    k = row["budgets"].index(steps)
    if row.get("se") is not None and row.get("success") is not None:
        return row["fitness"][k], row["se"][k], row["episodes"][k], row["success"][k]
    evaluation = json.loads((folder / "eval" / "evaluation.json").read_text(encoding="utf-8"))
    if abs(evaluation["fitness_mean"] - row["fitness"][k]) > 1e-9:
        raise SystemExit(f"{folder}: its evaluation is not the row's fitness")
    return row["fitness"][k], evaluation["fitness_se"], len(evaluation["fitness"]), evaluation["success_rate"]


def chain(
    task: str,
    reward: Path,
    seed: int,
    budgets: list[int],
    out: Path,
    executor: LocalExecutor,
    recorded: tuple[dict, Path] | None = None,
) -> dict:
    """Train one reward through `budgets` on `seed`, resuming each step from the previous one's weights. With
    `recorded` (an earlier table's row of this reward and seed, and its folder), the budgets it holds are taken from
    it (weights included) and only the missing ones are trained, each resumed from the point before it; a recorded
    point after a new one was then trained from the point before the new one, not through it (the row says which
    budgets were copied, `recorded`)."""
    spec = load_task(task)
    fitness: list[float | None] = []
    se: list[float | None] = []
    episodes: list[int | None] = []
    success: list[float | None] = []
    done, weights = 0, None
    for steps in budgets:
        folder = out / f"t{steps}"
        if recorded is not None and steps in recorded[0]["budgets"]:
            folder = recorded[1] / f"t{steps}"
            point = recorded_point(recorded[0], steps, folder)
            fitness.append(point[0])
            se.append(point[1])
            episodes.append(point[2])
            success.append(point[3])
            done, weights = steps, folder / "policy.safetensors"
            continue
        result, evaluation = train_and_evaluate(
            spec.source,
            reward,
            folder,
            timesteps=steps - done,
            seed=seed,
            eval_episodes=rung_episodes(spec.train.eval_episodes, steps, budgets[-1]),
            executor=executor,
            continue_from=weights,
            timesteps_done=done,
        )
        if evaluation is None or evaluation.fitness_mean is None:
            for column in (fitness, se, episodes, success):
                column += [None] * (len(budgets) - len(column))
            break
        fitness.append(float(evaluation.fitness_mean))
        se.append(float(evaluation.fitness_se) if evaluation.fitness_se is not None else None)
        episodes.append(len(evaluation.fitness))
        success.append(evaluation.success_rate)
        done, weights = steps, folder / "policy.safetensors"
    return {
        "file": reward.name,
        "label": label(reward),
        "seed": seed,
        "budgets": budgets,
        "fitness": fitness,
        "se": se,
        "episodes": episodes,
        "success": success,
        **({"recorded": [b for b in budgets if b in recorded[0]["budgets"]]} if recorded is not None else {}),
    }


def mean_rho(rows: list[dict], k: int, subset: tuple[str, ...], files: list[str]) -> list[float]:
    """Per seed, Spearman's rho between fraction `k`'s fitness and the full budget's over `files` (repeats allowed:
    a bootstrap resample) of the labels in `subset`; seeds with fewer than 4 such rewards are left out."""
    per = []
    for seed in sorted({r["seed"] for r in rows}):
        by = {r["file"]: r for r in rows if r["seed"] == seed and r["label"] in subset}
        mine = [
            by[f] for f in files if f in by and by[f]["fitness"][k] is not None and by[f]["fitness"][-1] is not None
        ]
        if len({r["file"] for r in mine}) >= 4:
            rho = spearman(np.array([r["fitness"][k] for r in mine]), np.array([r["fitness"][-1] for r in mine]))
            if rho is not None:
                per.append(rho)
    return per


def correlations(rows: list[dict], budgets: list[int], resamples: int = 1000) -> str:
    """The table: per budget, rho vs the full budget over all and over the good rewards: the mean over seeds, its
    standard error by a bootstrap over the pool's rewards (resampled with replacement, the same for every seed)."""
    rng = np.random.default_rng(0)
    files = sorted({r["file"] for r in rows})
    lines = [
        f"{'steps':>7} {'fraction':>8} {'rho all (mean ± se; each seed)':>40} {'rho good (mean ± se; each seed)':>40}"
    ]
    for k, steps in enumerate(budgets[:-1]):
        cells = []
        for subset in (RUNNABLE, ("good",)):
            per = mean_rho(rows, k, subset, files)
            boot = [mean_rho(rows, k, subset, list(rng.choice(files, len(files)))) for _ in range(resamples)]
            boot_means = [statistics.fmean(b) for b in boot if b]
            se = statistics.stdev(boot_means) if len(boot_means) > 1 else math.nan
            text = "-" if not per else f"{statistics.fmean(per):+.2f} ± {se:.2f}"
            cells.append(f"{text} ({' '.join(f'{v:+.2f}' for v in per)})")
        lines.append(f"{steps:>7,} {steps / budgets[-1]:>8.4f} {cells[0]:>40} {cells[1]:>40}")
    labels: dict[str, list[float]] = {}
    for r in rows:
        if r["fitness"][-1] is not None:
            labels.setdefault(r["label"], []).append(r["fitness"][-1])
    per_label = "; ".join(f"{lab} {np.mean(v):.4g} ± {np.std(v):.2g} (n={len(v)})" for lab, v in sorted(labels.items()))
    lines.append(f"full-budget fitness per label: {per_label}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--task", required=True)
    parser.add_argument("--seeds", type=int, default=2)
    parser.add_argument("--first-seed", type=int, default=0, help="train seeds first-seed .. first-seed + seeds - 1")
    parser.add_argument("--timesteps", type=int, default=16384, help="the full budget the rungs are fractions of")
    parser.add_argument("--fractions", default=FRACTIONS, help="increasing, ending at 1")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", type=Path, default=Path("/tmp/rewardsmith-rung-rho"))
    parser.add_argument("--only", default="", help="train only these pool files (comma-separated name prefixes)")
    parser.add_argument("--table-only", action="store_true")
    parser.add_argument(
        "--extend",
        type=Path,
        default=None,
        help="an earlier OUT whose rows of --task hold some of the budgets: train only the missing ones (`chain`)",
    )
    args = parser.parse_args(argv)
    spec = load_task(args.task)
    fractions = [float(x) for x in args.fractions.split(",")]
    if fractions[-1] != 1.0:
        parser.error("--fractions must end at 1")
    budgets = rung_budgets(args.timesteps, fractions, first_rung_minimum(spec))
    out = args.out / args.task
    out.mkdir(parents=True, exist_ok=True)
    path = out / "rows.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines()] if path.is_file() else []
    rows = [r for r in rows if r["budgets"] == budgets]
    done = {(r["file"], r["seed"]) for r in rows}
    samples, repairs = pool(args.task)
    prefixes = tuple(x for x in args.only.split(",") if x)
    files = [p for p in samples + repairs if label(p) in RUNNABLE and (not prefixes or p.name.startswith(prefixes))]
    jobs = [
        (p, s)
        for s in range(args.first_seed, args.first_seed + (0 if args.table_only else args.seeds))
        for p in files
        if (p.name, s) not in done
    ]
    earlier: dict[tuple[str, int], dict] = {}
    if args.extend is not None:
        lines = (args.extend / args.task / "rows.jsonl").read_text().splitlines()
        earlier = {(r["file"], r["seed"]): r for r in map(json.loads, lines) if set(r["budgets"]) <= set(budgets)}
        jobs = [job for job in jobs if (job[0].name, job[1]) in earlier]
    executor = LocalExecutor(args.workers)
    try:

        def one(job: tuple[Path, int]) -> dict:
            reward, seed = job
            old = earlier.get((reward.name, seed))
            where = (old, args.extend / args.task / f"seed_{seed}" / reward.stem) if old and args.extend else None
            row = chain(args.task, reward, seed, budgets, out / f"seed_{seed}" / reward.stem, executor, where)
            with path.open("a") as f:
                f.write(json.dumps(row) + "\n")
            print(f"{reward.name} seed {seed}: {row['fitness']}", flush=True)
            return row

        with ThreadPoolExecutor(max_workers=args.workers) as threads:
            rows += list(threads.map(one, jobs))
    finally:
        executor.shutdown()
    print(f"\n{args.task}: {len(files)} runnable rewards, budgets {budgets}")
    print(correlations(rows, budgets))
    return 0


if __name__ == "__main__":
    sys.exit(main())
