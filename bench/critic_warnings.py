"""How often the critic's structural warning (`rewardsmith.search.evidence.structural_warning`: a constant or alive
term dominating the reward, a constant total) falls on a weak or reward-hacking reward rather than a good one, on
the labelled pools (bench/pools/<task>/). No training: each pool file goes through the critic as a run checks it
(the static rules and the sandboxed smoke run on real states, no LLM review), and its report is read the way the
selection reads it.

Printed per pool and label: files, accepted by the critic, warned; then over the pools: the share of warned rewards
that are weak or reward-hacking (the tie-break's precision) and the share of good rewards warned (its cost).

    REWARDSMITH_ALLOW_UID0=1 nice -n 10 .venv/bin/python bench/critic_warnings.py

`--record bench/replay_tables/critic` also writes each pool's rows ({file, label, accepted, kind, warning, tie_break}:
the warning's kind, and the warning the selection's tie-break weighs, `tie_break_warning`) for
`bench/replay_strategies.py --tie-break`, which hands them to the replayed search's `Evidence.warnings`.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from strategies import LABELS, TASKS, label, pool  # bench/ is on sys.path when this file runs as a script

from rewardsmith.search.evidence import structural_finding, tie_break_warning
from rewardsmith.stages.critic import critique
from rewardsmith.task import load_task
from rewardsmith.workers.executor import LocalExecutor

BAD = ("weak", "reward-hacking")


def check(task: str, reward: Path, out: Path, executor: LocalExecutor) -> dict:
    """The critic's verdict and structural warning on one pool file: its kind, and the warning the selection's
    tie-break weighs (`tie_break_warning`, read from the report as `load_evidence` reads a run's critic.json)."""
    report = critique(
        load_task(task),
        reward,
        out / task / reward.stem,
        model=None,
        executor=executor,
        env_description=None,
        semantic=False,
    )
    found = structural_finding(report.to_dict())
    return {
        "task": task,
        "file": reward.name,
        "label": label(reward),
        "accepted": report.accepted,
        "kind": found[0] if found else None,
        "warning": found[1] if found else None,
        "tie_break": tie_break_warning(report.to_dict()),
    }


def table(rows: list[dict]) -> str:
    """Per pool and label, then the precision and cost of the warning over the accepted rewards."""
    lines = [f"{'pool':34} {'label':15} {'files':>5} {'accepted':>8} {'warned':>6}"]
    groups: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for r in rows:
        groups[(r["task"], r["label"])].append(r)
    for (task, lab), group in sorted(groups.items(), key=lambda kv: (kv[0][0], LABELS.index(kv[0][1]))):
        accepted = [r for r in group if r["accepted"]]
        warned = sum(bool(r["warning"]) for r in accepted)
        lines.append(f"{task:34} {lab:15} {len(group):>5} {len(accepted):>8} {warned:>6}")
    accepted = [r for r in rows if r["accepted"]]
    warned = [r for r in accepted if r["warning"]]
    bad = sum(r["label"] in BAD for r in warned)
    good = [r for r in accepted if r["label"] == "good"]
    lines += [
        "",
        f"warned and weak or reward-hacking / warned: {bad}/{len(warned)}",
        f"good warned / good accepted:                {sum(bool(r['warning']) for r in good)}/{len(good)}",
        f"bad warned / bad accepted:                  {bad}/{sum(r['label'] in BAD for r in accepted)}",
    ]
    lines += [f"  {r['task']}/{r['file']} ({r['label']}): {r['warning']}" for r in warned]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tasks", default=",".join(TASKS))
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", type=Path, default=Path("/tmp/rewardsmith-critic-warnings"))
    parser.add_argument(
        "--record", type=Path, default=None, help="also write RECORD/<task>.jsonl (bench/replay_tables/critic/)"
    )
    args = parser.parse_args(argv)
    jobs = [
        (task, p)
        for task in args.tasks.split(",")
        for p in sum(pool(task), [])
        if label(p) != "slow"  # the critic rejects them on time; their smoke runs only cost minutes
    ]
    executor = LocalExecutor(args.workers)
    try:
        with ThreadPoolExecutor(max_workers=args.workers) as threads:
            rows = list(threads.map(lambda job: check(*job, args.out, executor), jobs))
    finally:
        executor.shutdown()
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "rows.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    for task in sorted({r["task"] for r in rows}) if args.record is not None else ():
        args.record.mkdir(parents=True, exist_ok=True)
        mine = "".join(json.dumps(r) + "\n" for r in rows if r["task"] == task)
        (args.record / f"{task}.jsonl").write_text(mine, encoding="utf-8")
    print(table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
