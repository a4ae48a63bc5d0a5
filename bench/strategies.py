"""Strategies side by side: `--strategy eureka` against the default on hand-labelled reward pools.

Each task's pool (bench/pools/<task>/) is hand-written and labelled in its file names: `s<k>_<label>_*.py` are
the designer's samples in order, `r<k>_<label>_*.py` the replies to repair requests (a buggy and a too-slow
entry are rejected by the critic and ask for one). Every run is served the same replies through `--model
scripted:`, so both strategies train exactly the same set of reward programs (the samples are requested in
parallel, so which candidate id gets which file can differ between runs, and so can which rejected sample gets
which repair reply; labels follow the code, not the id); only the search seed (the training seed) changes
between repetitions.

Per task and strategy the table shows how often the returned reward is good-labelled, the env steps spent
(search rungs plus final retraining; resumed rungs count only their new steps), wall time, the returned
reward's final fitness, and how often the winner was distinguishable from the runner-up. A second table
proves the labels: every candidate's trusted fitness at the full budget, from the eureka runs, which train
every candidate fully. A third says how well each of the default's rungs predicts the full budget (Spearman's
rho against the same reward's fitness after Eureka's full training on the same seed). A fourth shows the screen
at the default's first cut per label (judged, passed, rejected: its false-reject and false-pass rates). A last
line gives the fixed cost per job (training plus evaluation worker), fitted from all jobs' wall times against
their steps.

    REWARDSMITH_ALLOW_UID0=1 .venv/bin/python bench/strategies.py --seeds 5 --timesteps 16384 --workers 2

Sized for a 2-core machine: 16,384 steps per fully trained candidate (the specs' own budgets are 100k-200k),
one iteration of the whole pool (K = 16, Eureka's), one final seed; the default strategy runs with its built-in
rungs and keep unless --rungs/--keep say otherwise. At this budget fitness is still noisy; say so when quoting
the numbers.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np
from rich.console import Console

from rewardsmith.config import RunConfig
from rewardsmith.run_folder.folder import RunFolder
from rewardsmith.run_folder.names import strip_header
from rewardsmith.search.live import PlainProgress
from rewardsmith.search.loop import run as run_search
from rewardsmith.stages.designer import is_duplicate

POOLS = Path(__file__).parent / "pools"
TASKS = tuple(sorted(p.name for p in POOLS.iterdir() if p.is_dir() and any(p.glob("s[0-9]*_*.py"))))
"""Every labelled pool in bench/pools/ (their converged labels, where trained: bench/replay_tables/converged/)."""
NOVEL = {"halfcheetah-run-backward"}  # the env's own reward runs forward


LABELS = ("good", "weak", "buggy", "reward-hacking", "slow")
REJECTED = ("buggy", "slow")  # the labels the critic rejects, each asking for one repair reply
STRATEGIES = ("eureka", "default")
NO_REPAIR = "The pool holds no further repair reply for this request, so no code follows."


def number(path: Path) -> int:
    """The number in a pool file name: s10_good_x.py -> 10."""
    return int(path.stem.split("_", 1)[0][1:])


def pool(task: str) -> tuple[list[Path], list[Path]]:
    """(samples, repair replies) of a task's pool, in numeric order (s10 after s9)."""
    folder = POOLS / task
    return (
        sorted(folder.glob("s[0-9]*_*.py"), key=number),
        sorted(folder.glob("r[0-9]*_*.py"), key=number),
    )


def label(path: Path) -> str:
    """The label in a pool file name: s3_buggy_typo.py -> buggy, s4_reward-hacking_forward.py -> reward-hacking."""
    return path.stem.split("_", 2)[1]


def write_script(task: str, out: Path, repair_rounds: int = 1) -> Path:
    """The scripted model's replies for one run: every sample, then the repair replies, then enough code-less
    replies that any repair request beyond the pool's (a sample the critic rejects unexpectedly, a repair
    rejected again) gets an answer, rejected as "no code", instead of ending the run with an empty script."""
    samples, repairs = pool(task)
    replies = [f"```python\n{p.read_text(encoding='utf-8')}\n```\n" for p in samples + repairs]
    replies += [NO_REPAIR] * max(len(samples) * repair_rounds - len(repairs), 0)
    lines = [json.dumps({"role": "designer", "content": text}) for text in replies]
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return out


def pool_entry(code: str, task: str) -> Path | None:
    """The pool file a candidate's code came from (matched up to whitespace and comments), or None."""
    samples, repairs = pool(task)
    return next(
        (p for p in samples + repairs if is_duplicate(strip_header(code), [p.read_text(encoding="utf-8")])), None
    )


def label_of(code: str, task: str) -> str:
    """The pool label of a candidate's code, "?" for code that is not in the pool."""
    entry = pool_entry(code, task)
    return label(entry) if entry else "?"


def env_steps(folder: RunFolder) -> tuple[int, int]:
    """(search steps, final retraining steps) of a finished run, from its events."""
    search = final = 0
    for e in folder.events():
        if e.get("event") == "training_started":
            search += int(e.get("timesteps") or 0) - int(e.get("resumed_from") or 0)
        elif e.get("event") == "seed_repeated":  # a close candidate trained again on a second seed
            search += int(e.get("budget") or 0)
        elif e.get("event") == "final_started":
            final += int(e.get("steps") or 0)
    return search, final


def job_costs(folder: RunFolder) -> list[tuple[int, float]]:
    """(steps, wall seconds) of every training job of a run (training plus its evaluation)."""
    started: dict[str, tuple[float, int]] = {}
    rows = []
    for e in folder.events():
        if e.get("event") == "training_started":
            started[e["candidate"]] = (e["t"], int(e.get("timesteps") or 0) - int(e.get("resumed_from") or 0))
        elif e.get("event") == "training_done" and e.get("candidate") in started and e.get("status") == "trained":
            t0, steps = started.pop(e["candidate"])
            rows.append((steps, e["t"] - t0))
    return rows


def one_run(task: str, strategy: str, seed: int, args: argparse.Namespace, root: Path) -> dict:
    """Run one search and return its row."""
    out = root / task / f"{strategy}_seed{seed}"
    shutil.rmtree(out, ignore_errors=True)  # a run without a row in rows.jsonl was cut short: start it again
    script = write_script(task, root / task / f"{strategy}_seed{seed}.jsonl", repair_rounds=1)
    samples, _ = pool(task)
    config = RunConfig(
        task=task,
        model=f"scripted:{script}",
        strategy=strategy,
        iterations=1,
        samples=len(samples),
        repair_rounds=1,
        iteration_retries=0,
        timesteps=args.timesteps,
        final_timesteps=args.timesteps,
        final_seeds=1,
        seed=seed,
        workers=args.workers,
        rungs=[float(x) for x in args.rungs.split(",")] if strategy == "default" and args.rungs else None,
        **({} if args.keep is None else {"keep": args.keep}),
        out=out,
    )
    log = (root / task / f"{strategy}_seed{seed}.log").open("w")
    started = time.time()
    folder = run_search(config, progress=PlainProgress(Console(file=log, highlight=False, width=200)))
    wall = time.time() - started
    summary = folder.summary() or {}
    best = summary.get("best_candidate")
    record = next(r for r in folder.candidates() if r.id == best)
    code = (folder.cand_dir(record.iteration, record.index) / "reward.py").read_text(encoding="utf-8")
    search, final = env_steps(folder)
    trained = [
        (label_of((folder.cand_dir(r.iteration, r.index) / "reward.py").read_text(encoding="utf-8"), task), r)
        for r in folder.candidates()
        if r.status == "trained"
    ]
    return {
        "task": task,
        "strategy": strategy,
        "seed": seed,
        "label": label_of(code, task),
        "search_steps": search,
        "final_steps": final,
        "wall_s": wall,
        "final_fitness": ((summary.get("final") or {}).get("fitness_mean")),
        "distinguishable": (summary.get("selection") or {}).get("distinguishable"),
        "p_best": ((summary.get("selection") or {}).get("confidence") or {}).get("p_best"),
        "floor": ((summary.get("selection") or {}).get("floor") or {}).get("how"),
        "full_budget": [
            (lab, r.fitness) for lab, r in trained if r.timesteps >= args.timesteps and r.fitness is not None
        ],
        "jobs": job_costs(folder),
    }


def table(rows: list[dict]) -> str:
    """The side-by-side table, one line per task and strategy."""
    head = (
        f"{'task':34} {'strategy':8} {'good':>6} {'search steps':>13} {'+final':>9} {'total':>9} {'ratio':>6} "
        f"{'wall s':>7} {'final fitness':>15} {'distinct':>8} {'P(best)':>7}"
    )
    lines = [head, "-" * len(head)]
    by = defaultdict(list)
    for r in rows:
        by[(r["task"], r["strategy"])].append(r)
    for task in dict.fromkeys(r["task"] for r in rows):
        eureka = [r["search_steps"] + r["final_steps"] for r in by[(task, "eureka")]]
        eureka_total = statistics.mean(eureka) if eureka else float("nan")  # no ratio without eureka runs
        for strategy in STRATEGIES:
            group = by[(task, strategy)]
            if not group:
                continue
            good = sum(r["label"] == "good" for r in group)
            search = statistics.mean(r["search_steps"] for r in group)
            final = statistics.mean(r["final_steps"] for r in group)
            fitness = [r["final_fitness"] for r in group if r["final_fitness"] is not None]
            distinct = sum(bool(r["distinguishable"]) for r in group)
            sure = [r["p_best"] for r in group if r.get("p_best") is not None]
            name = task + (" (novel)" if task in NOVEL else "")
            lines.append(
                f"{name:34} {strategy:8} {good:>3}/{len(group):<2} {search:>13,.0f} {final:>9,.0f} "
                f"{search + final:>9,.0f} {(search + final) / eureka_total:>6.2f} "
                f"{statistics.mean(r['wall_s'] for r in group):>7.0f} "
                f"{np.mean(fitness):>8.3f}±{(np.std(fitness) if fitness else 0):<6.3f} {distinct:>4}/{len(group)} "
                f"{(f'{np.mean(sure):.2f}' if sure else '-'):>7}"
            )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tasks", default=",".join(TASKS))
    parser.add_argument("--seeds", type=int, default=10, help="search seeds per task and strategy (issue 23: >= 10)")
    parser.add_argument(
        "--strategies", default=",".join(STRATEGIES), help="which strategies to run, comma-separated (eureka,default)"
    )
    parser.add_argument("--timesteps", type=int, default=16384, help="full training budget per candidate")
    parser.add_argument(
        "--rungs",
        default="",
        help="the default strategy's rungs as fractions of --timesteps, e.g. 0.25,0.5,1 (default '': its built-in "
        "ones, 1/16, 1/4, 1, the first held to one PPO rollout)",
    )
    parser.add_argument("--keep", type=float, default=None, help="the default strategy's keep (default: built-in)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", type=Path, default=Path("/tmp/rewardsmith-strategies"))
    parser.add_argument("--table-only", action="store_true", help="print the tables from OUT/rows.jsonl and stop")
    args = parser.parse_args(argv)
    strategies = [x for x in args.strategies.split(",") if x]
    if not strategies or set(strategies) - set(STRATEGIES):
        parser.error(f"--strategies: a comma-separated subset of {','.join(STRATEGIES)}; got {args.strategies!r}")
    args.out.mkdir(parents=True, exist_ok=True)
    results = args.out / "rows.jsonl"
    # finished runs are kept (seeds outermost, so a cut-short benchmark still covers every task)
    rows = [json.loads(line) for line in results.read_text().splitlines()] if results.is_file() else []
    done = {(r["task"], r["strategy"], r["seed"]) for r in rows}
    for seed in range(0 if args.table_only else args.seeds):
        for task in args.tasks.split(","):
            (args.out / task).mkdir(exist_ok=True)
            for strategy in strategies:
                if (task, strategy, seed) in done:
                    continue
                row = one_run(task, strategy, seed, args, args.out)
                rows.append(row)
                with results.open("a") as f:
                    f.write(json.dumps(row) + "\n")
                print(
                    f"{task} {strategy} seed {seed}: returned {row['label']}, "
                    f"{row['search_steps'] + row['final_steps']:,} steps, {row['wall_s']:.0f} s",
                    flush=True,
                )
    from strategy_tables import fixed_cost, goals, label_table, rung_signal, screen_table

    print()
    print(table(rows))
    print()
    print(goals(rows, args.out))
    print()
    print(label_table(rows))
    print()
    print(rung_signal(rows, args.out))
    print()
    print(screen_table(rows, args.out))
    print()
    print(fixed_cost(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
