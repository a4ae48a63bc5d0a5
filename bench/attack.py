"""The attack bench: every hostile program through every route, and the honest corpus through the gate.

Routes: the gate alone (`check_source`); the critic's smoke worker with the gate on and off; a training job with
the gate on and off. Each run happens as in tests/test_sandbox_hostile.py (whose machinery this imports): its own
run folder, a planted API key in this process's environment, a listener on 127.0.0.1. Per route it prints how
many programs were
- refused: the gate rejected the code before it ran (a finding; for the gate route, any finding);
- contained: the code ran (or was killed), and nothing escaped: no file outside its folder, no connection, no
  leaked secret, no process left behind, the run folder intact;
- escaped: any of those checks failed (listed by program).
It also counts verdicts that differ from the program's header, and the honest false rejections: the honest corpus
(tests/data/honest) through the gate and gated on real states; envs/examples, bench/pools and the reward extracts
in tests/data through the gate.

Run: `.venv/bin/python bench/attack.py [--quick] [--parallel 2]`. `--quick` runs the worker routes only for the
numpy memory programs and a few classic escapes (about 3 min on 2 cores); the gate route and the honest counts
always cover everything.
"""

from __future__ import annotations

import argparse
import glob
import os
import sys
import tempfile
import time
import uuid
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

import test_honest_corpus as honest  # noqa: E402
import test_sandbox_hostile as hostile  # noqa: E402
from conftest import make_tiny_spec  # noqa: E402

from rewardsmith.errors import ExtractionError  # noqa: E402
from rewardsmith.sandbox.policy import check_source, load_reward  # noqa: E402
from rewardsmith.stages.extract import extract_reward_code  # noqa: E402
from rewardsmith.task import read_task  # noqa: E402

QUICK = ("np_", "native_pointer_forger", "ctypes_system", "os_system", "open_write_etc", "subclasses_walk",
         "format_dunder_walk", "socket_loopback", "benign")  # fmt: skip
ROUTES = [("critic", True), ("critic", False), ("train", True), ("train", False)]


def worker_routes(programs: list[Path], parallel: int) -> list[hostile.Run]:
    """Every (program, route) run through the hostile suite's `execute`, with a planted key in the environment."""
    secret = f"sk-planted-{uuid.uuid4().hex}"
    base = Path(tempfile.mkdtemp(prefix="rewardsmith-attack-"))
    (base / "spec").mkdir()
    spec = read_task(
        make_tiny_spec(
            base / "spec",
            hostile.TASK,
            timesteps=256,
            eval_freq=100_000,
            eval_episodes=1,
            hyperparams={"n_steps": 128, "batch_size": 64, "n_epochs": 1},
        )
    )
    todo = [hostile.Run(p, runner, gate) for p in programs for runner, gate in ROUTES]
    todo.sort(key=lambda run: hostile._expected(run.program, run.runner, run.gate) != "killed")
    previous = os.environ.get("OPENAI_API_KEY")
    os.environ["OPENAI_API_KEY"] = secret
    try:
        with ThreadPoolExecutor(parallel) as pool:
            return list(pool.map(lambda run: hostile.execute(run, spec, base, secret), todo))
    finally:
        if previous is None:
            os.environ.pop("OPENAI_API_KEY", None)
        else:
            os.environ["OPENAI_API_KEY"] = previous
        for path in hostile._escapes():
            os.remove(path)


def classify(run: hostile.Run) -> str:
    if run.escaped or run.connected or run.leaked or run.leftovers or run.damaged:
        return "escaped"
    assert run.outcome is not None
    return "refused" if run.outcome.verdict == "static" else "contained"


def print_table(rows: list[tuple[str, Counter, list[str], list[str]]]) -> None:
    print(f"{'route':<16} {'programs':>8} {'refused':>8} {'contained':>10} {'escaped':>8} {'off-header':>11}")
    for route, counts, escaped, off in rows:
        total = sum(counts.values())
        print(
            f"{route:<16} {total:>8} {counts['refused']:>8} {counts['contained']:>10} {counts['escaped']:>8} "
            f"{len(off):>11}"
        )
        for name in escaped:
            print(f"    ESCAPED: {name}")
        for name in off:
            print(f"    verdict differs from the header: {name}")


def honest_counts() -> None:
    """The honest false-reject counts: the corpus gated on real states; the other honest sources through the gate."""
    rejected, failed = [], []
    for path in honest.CORPUS:
        source = path.read_text()
        if check_source(source):
            rejected.append(path.name)
            continue
        try:
            reward = load_reward(source, filename=path.name)
            for transition in honest.transitions(honest.task_of(path)):
                reward(*transition)
        except Exception as e:  # noqa: BLE001 - any failure gated counts as a false rejection
            failed.append(f"{path.name}: {type(e).__name__}: {e}")
    print(
        f"honest corpus (tests/data/honest): {len(honest.CORPUS)} rewards, false rejects {len(rejected) + len(failed)}"
        f" (gate {len(rejected)}, gated run on real states {len(failed)})"
    )
    for name in rejected + failed:
        print(f"    FALSE REJECT: {name}")
    sources = {
        "envs/examples": sorted(glob.glob(str(ROOT / "envs/examples/*.py"))),
        "bench/pools": sorted(glob.glob(str(ROOT / "bench/pools/**/*.py"), recursive=True)),
    }
    for name, files in sources.items():
        bad = [Path(f).name for f in files if check_source(Path(f).read_text())]
        print(f"{name}: {len(files)} rewards, gate false rejects {len(bad)} {bad or ''}")
    extracts, bad = 0, []
    for path in sorted((ROOT / "tests" / "data").glob("extract_*")):
        try:
            code = extract_reward_code(path.read_text(encoding="utf-8"))
        except ExtractionError:
            continue  # the fixtures that hold no valid reward
        extracts += 1
        if check_source(code):
            bad.append(path.name)
    print(f"tests/data extracts: {extracts} rewards, gate false rejects {len(bad)} {bad or ''}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="worker routes only for the numpy and classic programs")
    parser.add_argument("--parallel", type=int, default=2, help="runs at a time (each is a worker process)")
    args = parser.parse_args()
    started = time.perf_counter()
    corpus = hostile.CORPUS
    refused = {p.stem for p in corpus if check_source(p.read_text())}
    gate_off = [p.stem for p in corpus if (p.stem in refused) != (hostile.header(p, "gate") == "reject")]
    chosen = [p for p in corpus if not args.quick or p.stem.startswith(QUICK)]
    runs = worker_routes(chosen, args.parallel)
    rows = []
    for runner, gate in ROUTES:
        mine = [r for r in runs if r.runner == runner and r.gate == gate]
        counts = Counter(classify(r) for r in mine)
        escaped = [r.program.stem for r in mine if classify(r) == "escaped"]
        off = [
            f"{r.program.stem} ({r.outcome.verdict if r.outcome else '?'})"
            for r in mine
            if r.outcome and r.outcome.verdict != hostile._expected(r.program, runner, gate)
        ]
        rows.append((f"{runner} gate-{'on' if gate else 'off'}", counts, escaped, off))
    print(
        f"hostile programs: {len(corpus)} through the gate, {len(chosen)} through the worker routes"
        f"{' (--quick)' if args.quick else ''}"
    )
    print(
        f"gate (static): {len(corpus)} programs, refused {len(refused)}, passed {len(corpus) - len(refused)} "
        f"(those run in the worker routes), verdicts that differ from the header {len(gate_off)} {gate_off or ''}"
    )
    print_table(rows)
    honest_counts()
    print(f"wall time {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
