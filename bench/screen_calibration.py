"""Screen calibration: the trajectory screen's false-reject and false-pass rates on the labelled pools.

Reads a finished `bench/strategies.py` output folder (`--from`, default /tmp/rewardsmith-strategies). Its
eureka runs train every pool candidate fully, so their candidates' final evaluations (`eval/trajectories.npz`,
every episode labelled with the trusted fitness) together with random-action episodes make an archive with
spread. A run's own `random_policy/eval/` episodes are used where it has them (runs with `--screen`); else
the random policy is evaluated once per task here, by the same evaluation worker (no candidate code).

Every pool file (bench/pools/<task>/, samples and repair replies) is then screened through the real sandboxed
screen (`rewardsmith.stages.screen.screen`) against an archive of the OTHER rewards' policies plus the random
policy: the episodes of every candidate whose code is this pool file, in any run, are left out, so a reward is
never judged on the behaviour it trained itself.

Printed per task and label: judged / passed / rejected / no verdict (the screen passes, with a note, while the
archive is too small or has too little spread), then over all tasks the false-reject rate (good rejected /
good judged) and the false-pass rates (reward-hacking passed / reward-hacking judged; weak on its own line).
The "survival" column counts rejections by the stay-alive check (`rewardsmith.stages.screen.survival`: a return
explained by episode length or a constant per-step term); `--survival-sweep 0.05,0.1,0.2` re-judges the same
returns at other thresholds (no worker runs again) and prints good rejected / weak passed at each. Last, each
reward the critic warned about (`bench/replay_tables/critic/`) is rechecked on its returns as halving's first cut
rechecks it (`rewardsmith.search.evidence.Evidence.recheck`): the warning kept, or dropped and why.
Too-slow entries are left out by default (`--labels`): the screen has no time limit per call, the critic
rejects them before any screen, and each would take minutes on a large archive.

    REWARDSMITH_ALLOW_UID0=1 .venv/bin/python bench/screen_calibration.py --from /tmp/rewardsmith-strategies

Works on a folder with only eureka runs (`bench/strategies.py --strategies eureka`); a folder with default
runs adds their candidates' episodes too (trained at the last rung they reached). `--rung-rho` reads a
`bench/rung_rho.py` output folder instead: every pool reward's policy at every fraction of its chain, on every seed
(the early ones are the first rungs' policies, whose episodes the first-cut screen judges), plus one fresh
random-policy evaluation per task.

    REWARDSMITH_ALLOW_UID0=1 .venv/bin/python bench/screen_calibration.py --rung-rho --from /tmp/rewardsmith-rung-rho \
        --survival-sweep 0.02,0.05,0.1,0.15,0.2,0.3
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from replay_table import critic_warnings  # bench/ is on sys.path when this file runs as a script
from strategies import LABELS, label, pool

from rewardsmith.errors import RewardsmithError
from rewardsmith.run_folder.folder import RunFolder
from rewardsmith.run_folder.names import RANDOM_POLICY_DIR, strip_header
from rewardsmith.run_folder.records import EVAL_DIR, RUN_FILE, TASK_FILE, TRAJECTORIES_FILE
from rewardsmith.search.training import evaluate_policy
from rewardsmith.stages.designer import is_duplicate
from rewardsmith.stages.screen import (
    MIN_ACCURACY,
    MIN_SIGNAL,
    RANDOM_LABEL,
    screen,
    survival,
    trained_archives,
    varies_per_step,
)
from rewardsmith.task import TaskSpec, load_task
from rewardsmith.workers.executor import LocalExecutor

DEFAULT_LABELS = ("good", "weak", "reward-hacking", "buggy")


@dataclass(frozen=True)
class Archive:
    """One policy's archived episodes: `name` in the screen's tables, and the pool file its reward came from
    (None for the random policy, or for code that matches no pool file)."""

    name: str
    path: Path
    source: Path | None


def run_folders(root: Path, task: str) -> list[RunFolder]:
    """The finished or partial run folders of one task in a strategies output folder, by name."""
    folder = root / task
    if not folder.is_dir():
        return []
    return [RunFolder(p) for p in sorted(folder.iterdir()) if (p / RUN_FILE).is_file()]


def pool_file_of(code: str, task: str) -> Path | None:
    """The pool file whose code a candidate's reward is (up to whitespace, comments and the loop's header)."""
    samples, repairs = pool(task)
    stripped = strip_header(code)
    return next((p for p in samples + repairs if is_duplicate(stripped, [p.read_text(encoding="utf-8")])), None)


def candidate_archives(task: str, runs: list[RunFolder]) -> list[Archive]:
    """Every trained candidate's evaluation episodes across the runs, with the pool file it came from."""
    found = []
    for run in runs:
        records = {r.id: r for r in run.candidates()}
        for cid, path in trained_archives(run).items():
            record = records[cid]
            code = (run.cand_dir(record.iteration, record.index) / "reward.py").read_text(encoding="utf-8")
            source = pool_file_of(code, task)
            found.append(Archive(f"{run.path.name}/{cid} ({source.stem if source else '?'})", path, source))
    return found


def random_archives(spec: TaskSpec, runs: list[RunFolder], out: Path, executor: LocalExecutor) -> list[Archive]:
    """The runs' own random-policy episodes, or else one fresh evaluation of uniform random actions in
    `out/random_policy/` (reused by a later call with the same `out`)."""
    own = [run.path / RANDOM_POLICY_DIR / EVAL_DIR / TRAJECTORIES_FILE for run in runs]
    found = [Archive(f"{p.parents[2].name}/{RANDOM_LABEL}", p, None) for p in own if p.is_file()]
    if found:
        return found
    archive = out / RANDOM_POLICY_DIR / EVAL_DIR / TRAJECTORIES_FILE
    if not archive.is_file():
        assert spec.source is not None
        result, evaluation = evaluate_policy(
            spec.source,
            out / RANDOM_POLICY_DIR,
            episodes=max(3, spec.train.eval_episodes),
            executor=executor,
            random_policy=True,
        )
        if evaluation is None or not archive.is_file():
            raise RewardsmithError(f"{spec.name}: the random-policy evaluation failed: {result.error}")
    return [Archive(RANDOM_LABEL, archive, None)]


def screen_file(
    spec: TaskSpec,
    reward: Path,
    archives: list[Archive],
    out: Path,
    executor: LocalExecutor,
    min_signal: float = MIN_SIGNAL,
) -> dict:
    """Screen one pool file on the archives of the other rewards' policies; one row of the calibration."""
    others = {a.name: a.path for a in archives if a.source is None or a.source.name != reward.name}
    row = {"task": spec.name, "file": reward.name, "label": label(reward), "policies": len(others)}
    try:
        report = screen(spec, reward, out / reward.stem, others, executor=executor, min_signal=min_signal)
    except RewardsmithError as e:  # the worker could not run at all: no verdict, and say why
        return {**row, "outcome": "no verdict", "accuracy": None, "episodes": 0, "message": f"error: {e}"}
    outcome = "no verdict" if report.passed and report.accuracy is None else "passed" if report.passed else "rejected"
    return {
        **row,
        "outcome": outcome,
        "accuracy": report.accuracy,
        "episodes": report.episodes,
        "message": report.message,
        "survival": report.message.startswith("your reward's return is explained by survival time"),
        "details": [{k: d.get(k) for k in ("label", "fitness", "return", "steps")} for d in report.details],
    }


def rung_rho_archives(root: Path, task: str) -> list[Archive]:
    """Every chain training's evaluation episodes in a `bench/rung_rho.py` output folder, with its pool file."""
    samples, repairs = pool(task)
    by_stem = {p.stem: p for p in samples + repairs}
    return [
        Archive(
            f"{path.parents[3].name}/{path.parents[2].name}/{path.parents[1].name}",
            path,
            by_stem.get(path.parents[2].name),
        )
        for path in sorted((root / task).glob(f"seed_*/*/t*/{EVAL_DIR}/{TRAJECTORIES_FILE}"))
    ]


def calibrate_task(
    task: str,
    root: Path,
    out: Path,
    labels: tuple[str, ...],
    workers: int,
    rung_rho: bool = False,
    min_signal: float = MIN_SIGNAL,
) -> list[dict]:
    """Screen every pool file of one task with the chosen labels; [] when the folder has no runs of it."""
    runs = [] if rung_rho else run_folders(root, task)
    trained = rung_rho_archives(root, task) if rung_rho else candidate_archives(task, runs)
    if not trained:
        return []
    spec = load_task(task) if rung_rho else load_task(runs[0].path / TASK_FILE)  # the spec the runs used
    (out / task).mkdir(parents=True, exist_ok=True)
    executor = LocalExecutor(workers)
    try:
        archives = trained + random_archives(spec, runs, out / task, executor)
        samples, repairs = pool(task)
        files = [p for p in samples + repairs if label(p) in labels]
        with ThreadPoolExecutor(max_workers=workers) as threads:
            return list(threads.map(lambda p: screen_file(spec, p, archives, out / task, executor, min_signal), files))
    finally:
        executor.shutdown()


def rate(rows: list[dict], lab: str, outcome: str) -> str:
    """`outcome` count over judged count for one label, as 'k/n = x.xx'."""
    judged = [r for r in rows if r["label"] == lab and r["outcome"] != "no verdict"]
    hits = sum(r["outcome"] == outcome for r in judged)
    return f"{hits}/{len(judged)} = {hits / len(judged):.2f}" if judged else "0/0"


def table(rows: list[dict]) -> str:
    """Per task and label: judged / passed / rejected / no verdict; then the error rates per task and over all."""
    head = (
        f"{'task':34} {'label':15} {'files':>5} {'judged':>6} {'passed':>6} {'rejected':>8} {'survival':>8} "
        f"{'no verdict':>10}"
    )
    lines = [head, "-" * len(head)]
    groups: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for r in rows:
        groups[(r["task"], r["label"])].append(r)
    for (task, lab), group in sorted(groups.items(), key=lambda kv: (kv[0][0], LABELS.index(kv[0][1]))):
        count = {o: sum(r["outcome"] == o for r in group) for o in ("passed", "rejected", "no verdict")}
        judged = count["passed"] + count["rejected"]
        lines.append(
            f"{task:34} {lab:15} {len(group):>5} {judged:>6} {count['passed']:>6} {count['rejected']:>8} "
            f"{sum(bool(r.get('survival')) for r in group):>8} {count['no verdict']:>10}"
        )
    tasks = list(dict.fromkeys(r["task"] for r in rows))
    if len(tasks) > 1:
        lines += ["", f"{'task':34} {'false reject (good)':>20} {'false pass (hacking)':>20} {'weak passed':>14}"]
        for task in tasks:
            mine = [r for r in rows if r["task"] == task]
            lines.append(
                f"{task:34} {rate(mine, 'good', 'rejected'):>20} {rate(mine, 'reward-hacking', 'passed'):>20} "
                f"{rate(mine, 'weak', 'passed'):>14}"
            )
    lines += [
        "",
        f"over {len(tasks)} task(s):",
        f"false-reject rate (good rejected / good judged):                 {rate(rows, 'good', 'rejected')}",
        f"false-pass rate (reward-hacking passed / reward-hacking judged): {rate(rows, 'reward-hacking', 'passed')}",
        f"weak passed / weak judged:                                       {rate(rows, 'weak', 'passed')}",
    ]
    if any(r["label"] == "buggy" for r in rows):
        lines.append(
            f"buggy rejected / buggy judged:                                   {rate(rows, 'buggy', 'rejected')}"
        )
    return "\n".join(lines)


def sweep(rows: list[dict], thresholds: list[float]) -> str:
    """Good rejected and weak passed at each stay-alive threshold, re-judged from the rows' recorded returns (a
    verdict stands on the accuracy rule and on `survival` at that threshold)."""
    lines = [f"{'survival cv':>11} {'good rejected':>14} {'weak passed':>12} {'hacking passed':>15}"]
    judged = [r for r in rows if r["outcome"] != "no verdict" and r.get("details")]
    for cv in thresholds:
        counts = {}
        for lab in ("good", "weak", "reward-hacking"):
            mine = [r for r in judged if r["label"] == lab]
            passed = sum((r["accuracy"] or 0) >= MIN_ACCURACY and survival(r["details"], cv) is None for r in mine)
            counts[lab] = (passed, len(mine))
        good, weak, hack = counts["good"], counts["weak"], counts["reward-hacking"]
        lines.append(
            f"{cv:>11.3g} {good[1] - good[0]:>8}/{good[1]:<5} {weak[0]:>6}/{weak[1]:<5} {hack[0]:>9}/{hack[1]:<5}"
        )
    return "\n".join(lines)


def recheck(rows: list[dict]) -> str:
    """The critic's tie-breaking warnings (recorded by `bench/critic_warnings.py --record` in
    `bench/replay_tables/critic/<task>.jsonl`) against this archive: kept or dropped by the first cut's recheck
    (`rewardsmith.search.evidence.Evidence.recheck`: the reward's per-step return varied over the episodes)."""
    lines = [f"{'task':34} {'file':40} {'label':15} warning on this archive"]
    for task in dict.fromkeys(r["task"] for r in rows):
        path = Path(__file__).parent / "replay_tables" / "critic" / f"{task}.jsonl"
        warned = critic_warnings(path) if path.is_file() else {}
        for r in rows:
            if r["task"] == task and r["file"] in warned:
                why = varies_per_step(r.get("details") or [])
                lines.append(f"{task:34} {r['file']:40} {r['label']:15} {'dropped: ' + why if why else 'kept'}")
    return "\n".join(lines) if len(lines) > 1 else "no critic warning recorded for these tasks"


def details(rows: list[dict]) -> str:
    """One line per screened file: its outcome, accuracy and the screen's message."""
    return "\n".join(
        f"{r['task']:34} {r['file']:40} {r['outcome']:10} "
        f"{'-' if r['accuracy'] is None else format(r['accuracy'], '.2f'):>5}  {r['message'][:220]}"
        for r in rows
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--from", dest="source", type=Path, default=Path("/tmp/rewardsmith-strategies"))
    parser.add_argument("--out", type=Path, help="where the screens' files go (default: FROM/screen_calibration)")
    parser.add_argument("--tasks", help="comma-separated (default: every task with runs in FROM)")
    parser.add_argument("--labels", default=",".join(DEFAULT_LABELS), help="the labels to screen")
    parser.add_argument("--workers", type=int, default=2, help="screens at once")
    parser.add_argument("--rung-rho", action="store_true", help="FROM is a bench/rung_rho.py output folder")
    parser.add_argument(
        "--min-signal",
        type=float,
        default=MIN_SIGNAL,
        help="the archive's spread a verdict needs (0: as the first cut of halving judges, every verdict counts)",
    )
    parser.add_argument("--survival-sweep", default="", help="stay-alive thresholds to re-judge at, e.g. 0.05,0.1,0.2")
    args = parser.parse_args(argv)
    labels = tuple(x for x in args.labels.split(",") if x)
    if not labels or set(labels) - set(LABELS):
        parser.error(f"--labels: a comma-separated subset of {','.join(LABELS)}; got {args.labels!r}")
    if not args.source.is_dir():
        parser.error(f"--from {args.source}: no such folder (run bench/strategies.py first)")
    out = args.out or args.source / "screen_calibration"
    tasks = (
        args.tasks.split(",")
        if args.tasks
        else sorted(
            p.name
            for p in args.source.iterdir()
            if (rung_rho_archives(args.source, p.name) if args.rung_rho else run_folders(args.source, p.name))
        )
    )
    rows = []
    for task in tasks:
        found = calibrate_task(task, args.source, out, labels, args.workers, args.rung_rho, args.min_signal)
        if not found:
            print(f"{task}: no runs in {args.source / task}, skipped", file=sys.stderr)
        rows += found
    if not rows:
        parser.error(f"--from {args.source}: no strategies runs found")
    (out / "rows.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    print(details(rows))
    print()
    print(table(rows))
    print()
    print(recheck(rows))
    if args.survival_sweep:
        print()
        print(sweep(rows, [float(x) for x in args.survival_sweep.split(",") if x]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
