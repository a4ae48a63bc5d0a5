"""Does a design emphasis per sample make K samples differ more, run, and train well? For each task, K designer
requests to one model, twice: K byte-identical prompts (temperature alone), then sample k with `emphasis_for(k)`
(none, minimal, staged, potential, ...). Per arm: replies with code, distinct codes (up to whitespace and comments),
runnable ones (the critic's static checks, then its sandboxed smoke run on real states), and with `--train` good
ones: each runnable reply trained once at the quick start's budget (`--timesteps`, 20,000) in the sandboxed training
worker, then played by the trusted evaluation worker, and counted good when its fitness beats the random policy's
(played by the same worker, `--random-episodes` episodes) by at least 2 standard errors of the difference. A reply
whose code repeats one already trained (same syntax tree) reuses that training's result.

Run: `nice -n 10 .venv/bin/python bench/emphasis.py [--tasks a,b] [--samples 4] [--model local] [--train]
[--arms identical|emphasis]`. With the built-in local model (Gemma 3 270M on CPU) a reply takes about a minute on
2 idle cores and 4-20 minutes on 2 cores shared with other jobs (the replies of one process take turns), a training
at 20,000 steps about a minute; a benchmark, not a test.
"""

from __future__ import annotations

import argparse
import ast
import math
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT)]

from rewardsmith.llm import get_model  # noqa: E402
from rewardsmith.search.calibration import random_fitness  # noqa: E402
from rewardsmith.search.training import train_and_evaluate  # noqa: E402
from rewardsmith.stages.critic import dynamic_findings, static_findings  # noqa: E402
from rewardsmith.stages.design_emphasis import emphasis_for, with_emphasis  # noqa: E402
from rewardsmith.stages.designer import Designer  # noqa: E402
from rewardsmith.stages.env_description import describe  # noqa: E402
from rewardsmith.stages.extract import dedupe  # noqa: E402
from rewardsmith.stats import mean_se  # noqa: E402
from rewardsmith.task import TaskSpec, load_task  # noqa: E402
from rewardsmith.workers.executor import LocalExecutor  # noqa: E402

GOOD_SE = 2.0
"""A trained reply is good when its trusted fitness beats the random policy's by this many standard errors."""


@dataclass
class Row:
    """One task and arm: counts of replies with code, distinct codes, runnable and good ones, and seconds."""

    task: str
    arm: str
    code: int = 0
    distinct: int = 0
    runnable: int = 0
    good: int | None = None
    seconds: float = 0.0
    fitness: list[str] = field(default_factory=list)


def runnable(spec: TaskSpec, code: str, work: Path, executor) -> Path | None:
    """The reward file when the critic's static checks and its smoke run (without the LLM review) pass, else None."""
    if static_findings(code):
        return None
    work.mkdir(parents=True, exist_ok=True)
    path = work / "reward.py"
    path.write_text(code)
    findings, _ = dynamic_findings(spec, path, work / "critic", executor=executor, timeout_s=120)
    return None if [f for f in findings if f.severity == "error"] else path


def program(code: str) -> str:
    """The code's syntax tree (what makes two replies the same program)."""
    try:
        return ast.dump(ast.parse(code))
    except SyntaxError:
        return code.strip()


def arm(designer: Designer, messages, samples: int, emphasis: bool) -> list:
    """The K designs of one arm (`emphasis`: sample k's own request)."""
    each = {k: with_emphasis(messages, emphasis_for(k)) for k in range(1, samples + 1)} if emphasis else None

    def done(k: int, design) -> None:  # partial figures survive a killed run
        print(f"  sample {k}: {'code' if design.code else 'no code'}, {design.latency_s:.0f} s", flush=True)

    return designer.sample(messages, list(range(1, samples + 1)), on_done=done, each=each)


class Trainer:
    """Trains each distinct runnable reward of one task once and judges it against the random policy."""

    def __init__(self, spec: TaskSpec, work: Path, executor, timesteps: int, random_episodes: int) -> None:
        self.spec, self.work, self.executor, self.timesteps = spec, work, executor, timesteps
        self.trained: dict[str, tuple[float, float]] = {}
        values = random_fitness(spec, work / "random", executor, random_episodes)
        self.random = mean_se(values)
        print(f"  random policy: {self.random[0]:.4g} ± {self.random[1]:.2g} ({len(values)} episodes)", flush=True)

    def fitness(self, code: str, path: Path) -> tuple[float, float]:
        """(mean, se) of the trusted fitness after training `path` (nan when training or evaluation failed)."""
        key = program(code)
        if key not in self.trained:
            folder = self.work / f"train_{len(self.trained)}"
            folder.mkdir(parents=True, exist_ok=True)
            start = time.monotonic()
            result, evaluation = train_and_evaluate(
                self.spec.source,
                path,
                folder,
                timesteps=self.timesteps,
                seed=0,
                eval_episodes=self.spec.train.eval_episodes,
                executor=self.executor,
                options={"timeout_s": 600 + self.timesteps / 10},
            )
            if evaluation is None or evaluation.fitness_mean is None:
                print(f"    training failed: {' '.join(str(result.error).split())[:160]}", flush=True)
                self.trained[key] = (math.nan, math.nan)
            else:
                self.trained[key] = (float(evaluation.fitness_mean), float(evaluation.fitness_se or 0.0))
            mean, se = self.trained[key]
            print(f"    trained: {mean:.4g} ± {se:.2g} ({time.monotonic() - start:.0f} s)", flush=True)
        return self.trained[key]

    def good(self, mean: float, se: float) -> bool:
        """Whether a trained fitness beats the random policy by `GOOD_SE` standard errors of the difference."""
        gap = mean - self.random[0]
        return math.isfinite(gap) and gap > 0 and gap >= GOOD_SE * math.hypot(se, self.random[1])


def measure(spec: TaskSpec, designs: list, label: str, work: Path, executor, trainer: Trainer | None) -> Row:
    """One arm's row: its replies checked, and with a trainer each runnable one trained and judged."""
    codes = [d.code for d in designs if d.code]
    row = Row(spec.name, label, len(codes), len(dedupe(codes)), good=0 if trainer else None)
    for i, code in enumerate(codes):
        path = runnable(spec, code, work / f"{label}_{i}", executor)
        if path is None:
            continue
        row.runnable += 1
        if trainer is not None and row.good is not None:
            mean, se = trainer.fitness(code, path)
            row.good += trainer.good(mean, se)
            row.fitness.append(f"{mean:.3g}±{se:.2g}")
    return row


def main() -> None:
    """Print one row per task and arm: replies with code, distinct, runnable (and good), seconds; then totals."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", default="hopper-hop,metaworld-reach,fetch-push")
    parser.add_argument("--samples", type=int, default=4)
    parser.add_argument("--model", default="local")
    parser.add_argument("--train", action="store_true", help="train each runnable reply and compare with random")
    parser.add_argument("--timesteps", type=int, default=20000, help="per reply: the quick start's 20,000")
    parser.add_argument("--random-episodes", type=int, default=20, help="episodes of the random policy per task")
    parser.add_argument("--arms", default="identical,emphasis", help="the arms to run (one process per arm runs both)")
    args = parser.parse_args()
    executor = LocalExecutor(workers=1)
    rows: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="emphasis-") as tmp:
        model = get_model(args.model, use_cache=False)
        for name in args.tasks.split(","):
            spec = load_task(name)
            work = Path(tmp) / name
            designer = Designer(model, spec, describe(spec))
            messages = designer.prompt()
            trainer = Trainer(spec, work, executor, args.timesteps, args.random_episodes) if args.train else None
            for label in [a for a in ("identical", "emphasis") if a in args.arms.split(",")]:
                start, emphasis = time.monotonic(), label == "emphasis"
                designs = arm(designer, messages, args.samples, emphasis)
                rows.append(measure(spec, designs, label, work, executor, trainer))
                rows[-1].seconds = time.monotonic() - start
                r = rows[-1]
                good = f"  good {r.good}" if r.good is not None else ""
                print(
                    f"{name:28} {label:10} code {r.code}/{args.samples}  distinct {r.distinct}  runnable {r.runnable}"
                    f"{good}  {' '.join(r.fitness)}",
                    flush=True,
                )
    print(f"\n{'task':28} {'arm':10} {'replies':>7} {'distinct':>9} {'runnable':>9} {'good':>5} {'seconds':>8}")
    for r in rows:
        good = "-" if r.good is None else str(r.good)
        print(f"{r.task:28} {r.arm:10} {r.code:>7} {r.distinct:>9} {r.runnable:>9} {good:>5} {r.seconds:>8.0f}")
    for label in ("identical", "emphasis"):
        mine = [r for r in rows if r.arm == label]
        total = args.samples * len(mine)
        good = f", good {sum(r.good or 0 for r in mine)}/{total}" if args.train else ""
        print(
            f"{label}: replies {sum(r.code for r in mine)}/{total}, distinct {sum(r.distinct for r in mine)}/{total},"
            f" runnable {sum(r.runnable for r in mine)}/{total}{good}"
        )


if __name__ == "__main__":
    main()
