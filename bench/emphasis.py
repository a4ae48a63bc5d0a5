"""Does a design emphasis per sample make K samples differ more, and still run? For each task, K designer requests
to one model, twice: K byte-identical prompts (temperature alone), then sample k with `emphasis_for(k)` (none,
minimal, staged, potential, ...). Per arm: replies with code, distinct codes (up to whitespace and comments), and
runnable ones (the critic's static checks, then its sandboxed smoke run on real states). No training: "good" is
not measured here.

Run: `.venv/bin/python bench/emphasis.py [--tasks a,b] [--samples 4] [--model local]`. With the built-in local
model (Gemma 3 270M on CPU) about a minute per reply on 2 busy cores; a benchmark, not a test.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT)]

from rewardsmith.llm import get_model  # noqa: E402
from rewardsmith.stages.critic import dynamic_findings, static_findings  # noqa: E402
from rewardsmith.stages.design_emphasis import emphasis_for, with_emphasis  # noqa: E402
from rewardsmith.stages.designer import Designer  # noqa: E402
from rewardsmith.stages.env_description import describe  # noqa: E402
from rewardsmith.stages.extract import dedupe  # noqa: E402
from rewardsmith.task import load_task  # noqa: E402
from rewardsmith.workers.executor import LocalExecutor  # noqa: E402


def runnable(spec, code: str, work: Path, executor) -> bool:
    """The critic's static checks and its smoke run, without the LLM review."""
    if static_findings(code):
        return False
    work.mkdir(parents=True, exist_ok=True)
    path = work / "reward.py"
    path.write_text(code)
    findings, _ = dynamic_findings(spec, path, work / "critic", executor=executor, timeout_s=120)
    return not [f for f in findings if f.severity == "error"]


def arm(designer: Designer, messages, samples: int, emphasis: bool) -> list:
    """The K designs of one arm (`emphasis`: sample k's own request)."""
    each = {k: with_emphasis(messages, emphasis_for(k)) for k in range(1, samples + 1)} if emphasis else None

    def done(k: int, design) -> None:  # partial figures survive a killed run
        print(f"  sample {k}: {'code' if design.code else 'no code'}, {design.latency_s:.0f} s", flush=True)

    return designer.sample(messages, list(range(1, samples + 1)), on_done=done, each=each)


def main() -> None:
    """Print one row per task and arm: replies with code, distinct codes, runnable codes, seconds."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", default="hopper-hop,metaworld-reach,fetch-push")
    parser.add_argument("--samples", type=int, default=4)
    parser.add_argument("--model", default="local")
    args = parser.parse_args()
    executor = LocalExecutor(workers=1)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        model = get_model(args.model, use_cache=False)
        for name in args.tasks.split(","):
            spec = load_task(name)
            designer = Designer(model, spec, describe(spec))
            messages = designer.prompt()
            for emphasis in (False, True):
                start = time.monotonic()
                designs = arm(designer, messages, args.samples, emphasis)
                codes = [d.code for d in designs if d.code]
                ok = sum(
                    runnable(spec, c, Path(tmp) / name / f"{int(emphasis)}_{i}", executor) for i, c in enumerate(codes)
                )
                label = "emphasis" if emphasis else "identical"
                rows.append((name, label, len(codes), len(dedupe(codes)), ok, time.monotonic() - start))
                print(
                    f"{name:28} {label:10} code {len(codes)}/{args.samples}  distinct {rows[-1][3]}  runnable {ok}",
                    flush=True,
                )
    print(f"\n{'task':28} {'arm':10} {'code':>5} {'distinct':>9} {'runnable':>9} {'seconds':>8}")
    for name, label, n, distinct, ok, seconds in rows:
        print(f"{name:28} {label:10} {n:>5} {distinct:>9} {ok:>9} {seconds:>8.0f}")
    for label in ("identical", "emphasis"):
        mine = [r for r in rows if r[1] == label]
        total = args.samples * len(mine)
        print(
            f"{label}: distinct {sum(r[3] for r in mine)}/{total}, runnable {sum(r[4] for r in mine)}/{total}"
            f" (of {sum(r[2] for r in mine)} replies with code)"
        )


if __name__ == "__main__":
    main()
