"""Does the offline default work on tasks it has not seen? One real 1-iteration run per task with the built-in model.

For each task, sequentially (under `nice -n 10`; `--nice N` for another increment), in its own run folder:
`rewardsmith run TASK --model local --iterations 1 --samples 2 --timesteps 20000 --final-seeds 0 --workers 1`
(the quick start's budget per candidate, README's first command, with one iteration), then one row from the run
folder: candidates designed, how many are templates (not designed by a model), how many the critic accepted
(they ran on the env: runnable), how many trained, the best trusted search fitness, the random policy's
fitness on the same scorer, whether the best beats it, wall seconds, and the first reason when nothing trained.

The verdict is not the search's own number: that is the best of the run's candidates (biased upward by the pick) on
the rung's few episodes. The run's pick (its best candidate's weights) and the random policy are each played again
by the trusted evaluation worker on `--eval-episodes` fresh seeds (default 20), and "beats random" compares those
two means, "by > 2 SE" with both standard errors (per-episode spread / sqrt(episodes)). `--reference` also trains
the task's own hand-written example (`envs/examples/`, which the offline model never uses for its own task) at the
same budget and scores it the same way: where even the example does not beat random, the budget is blind, whatever
the model writes.

The `issue25` set (the default): six shipped tasks of different families, whose own example the offline model
never uses, and two specs made with `rewardsmith new-task` the way a user would (an Ant task and a push task:
the TODOs filled in; new-task gives them the [train] of the shipped task on the same env). Minutes per task: a benchmark,
not a test.

Run: `.venv/bin/python bench/offline_tasks.py [--tasks issue25|original|all|NAME,NAME] [--keep DIR]`.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from rewardsmith.errors import RunFolderError
from rewardsmith.run_folder.records import Evaluation
from rewardsmith.views.candidate_view import CandidateView
from rewardsmith.views.run_view import RunView, read_run

ROOT = Path(__file__).resolve().parents[1]
ORIGINAL = [n for n in (ROOT / "envs" / "starter.txt").read_text().splitlines() if n and not n.startswith("#")]
"""The 11 MuJoCo specs the project shipped first (commit 1293571), before the other families."""
ISSUE25 = [
    "hopper-hop",
    "ant-spin",
    "reacher-reach",
    "mountaincar-reach-flag",
    "metaworld-push",
    "fetch-reach",
    "new:ant-left",
    "new:push-cylinder",
]
NEW_TASKS = {  # name -> (env, description, success, scorer measure, unit); the [train] is new-task's
    "ant-left": (
        "Ant-v5",
        "Make the ant move to its left (towards +y) as fast as possible, staying right side up.\n"
        "It should not flip over.",
        "the torso ends the episode at least 1 m to the left (+y) of where it started.",
        "float(self.latest[1] - self.start[1])",
        "metres the torso moved along +y over the episode; higher is better",
    ),
    "push-cylinder": (
        "Pusher-v5",
        "Push the cylinder onto the goal disc on the table with the arm's fingertip.\n"
        "The cylinder starts at a random spot; it should end the episode on the goal.",
        "at the episode's end the cylinder is within 0.05 m of the goal in the xy-plane.",
        "float(np.linalg.norm(self.start[:2]) - np.linalg.norm(self.latest[:2]))",
        "metres the cylinder-to-goal distance (xy) shrank over the episode; higher is better",
    ),
}
"""The `new:` tasks: made by `rewardsmith new-task`, then their TODOs filled in as a user would."""
MEASURE = {"push-cylinder": "state.body('object').pos - state.body('goal').pos"}


def all_tasks() -> list[str]:
    """Every shipped spec in envs/."""
    return sorted(p.stem for p in (ROOT / "envs").glob("*.toml"))


def cli(nice: int = 10) -> list[str]:
    """The installed `rewardsmith` command under `nice -n NICE`."""
    return ["nice", "-n", str(nice), str(Path(sys.executable).with_name("rewardsmith"))]


def environment() -> dict[str, str]:
    env = dict(os.environ)
    if os.geteuid() == 0:
        env["REWARDSMITH_ALLOW_UID0"] = "1"
    return env


def new_task(name: str, folder: Path, nice: int = 10) -> Path:
    """`rewardsmith new-task NAME --env ENV` into `folder`, its TODOs filled in (`NEW_TASKS`); the spec's path."""
    env, description, success, progress, unit = NEW_TASKS[name]
    command = [*cli(nice), "new-task", name, "--env", env, "--folder", str(folder), "--force"]
    subprocess.run(command, env=environment(), capture_output=True, text=True, check=True, timeout=600)
    spec = folder / f"{name}.toml"
    text = re.sub(r'description = """.*?"""', f'description = """\n{description}\n"""', spec.read_text(), flags=re.S)
    text = re.sub(r'^success = ".*"$', f'success = "{success}"', text, flags=re.M)
    spec.write_text(text)
    scorer = folder / f"scorer_{name.replace('-', '_')}.py"
    code = scorer.read_text().replace("TODO: unit; higher is better", unit)
    code = re.sub(
        r"progress = float\(np\.linalg\.norm\(self\.latest - self\.start\)\).*", f"progress = {progress}", code
    )
    if name in MEASURE:
        code = code.replace("return state.body(self.body).pos", f"return {MEASURE[name]}")
    scorer.write_text(code)
    return spec


def run_task(task: str, out: Path, args: argparse.Namespace) -> tuple[int, float, str]:
    """One offline run of `task` into `out`: (exit code, wall seconds, last lines of its output)."""
    command = [*cli(args.nice), "run", task, "--model", "local", "--iterations", "1", "--samples", str(args.samples)]
    command += ["--timesteps", str(args.timesteps), "--final-seeds", "0", "--workers", "1", "--out", str(out)]
    start = time.monotonic()
    done = subprocess.run(command, env=environment(), capture_output=True, text=True, timeout=args.timeout, check=False)
    tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-3:])
    return done.returncode, time.monotonic() - start, tail


def first_reason(view: RunView) -> str:
    """Why the first candidate that did not train did not: the loop's reason, else the critic's first finding."""
    for c in view.candidates:
        if c.status == "trained":
            continue
        if c.note:
            return c.note
        if c.findings:
            return c.findings[0].message
    return ""


def scored(evaluation: Evaluation) -> tuple[float, float]:
    """The evaluation worker's mean trusted fitness over the episodes and its standard error."""
    return float(evaluation.fitness_mean or 0.0), float(evaluation.fitness_se or 0.0)


def fresh_policy(folder: Path, episodes: int, task: str | None = None) -> tuple[float, float] | str:
    """The policy in a run or training folder played by the trusted evaluation worker on `episodes` fresh seeds:
    (mean, se), or why not."""
    from rewardsmith.errors import RewardsmithError
    from rewardsmith.search.saved_policy import evaluate_target, find_policy

    try:
        evaluation, _ = evaluate_target(find_policy(folder, task=task), episodes=episodes)
    except RewardsmithError as e:
        return str(e)
    return scored(evaluation)


def trained(view: RunView) -> list[CandidateView]:
    """The run's candidates that trained and have a search fitness."""
    return [c for c in view.candidates if c.status == "trained" and c.record and c.record.fitness is not None]


def best_trained(view: RunView) -> CandidateView | None:
    """The trained candidate with the best search fitness, or None."""
    return max(trained(view), key=lambda c: c.record.fitness or 0.0 if c.record else 0.0, default=None)


def fresh_best_trained(out: Path, episodes: int) -> tuple[float, float] | None:
    """The trained candidate with the best search fitness of a run that wrote no `best/` (cut short), played on
    fresh seeds as `fresh_policy` plays a run's pick; None when none trained."""
    try:
        view = read_run(out)
    except RunFolderError:
        return None
    best = best_trained(view)
    if best is None:
        return None
    score = fresh_policy(best.path, episodes)  # its run's task, found from the folder
    return score if isinstance(score, tuple) else None


def fresh_random(spec_path: Path, episodes: int) -> tuple[float, float]:
    """Uniform random actions on the same scorer, `episodes` fresh seeds: (mean, se)."""
    from rewardsmith.search.training import evaluate_policy
    from rewardsmith.workers.executor import LocalExecutor

    executor = LocalExecutor(1)
    with tempfile.TemporaryDirectory(prefix="offline-random-") as work:
        try:
            result, evaluation = evaluate_policy(
                spec_path, Path(work), episodes=episodes, executor=executor, random_policy=True
            )
        finally:
            executor.shutdown()
    if evaluation is None:
        raise RuntimeError(f"the random policy's evaluation failed: {result.error}")
    return scored(evaluation)


def example_reward(task: str) -> Path | None:
    """The shipped task's own hand-written example reward, if any."""
    path = ROOT / "envs" / "examples" / f"{task.replace('-', '_')}.py"
    return path if path.is_file() else None


def train_reference(task: str, reward: Path, out: Path, args: argparse.Namespace) -> tuple[float, float] | str:
    """`rewardsmith train TASK REWARD` at the bench's budget (seed 0), then its policy on fresh seeds."""
    command = [*cli(args.nice), "train", task, str(reward), "--timesteps", str(args.timesteps), "--out", str(out)]
    done = subprocess.run(command, env=environment(), capture_output=True, text=True, timeout=args.timeout, check=False)
    if done.returncode != 0:
        return f"train exit {done.returncode}: " + " ".join((done.stdout + done.stderr).split()[-20:])
    return fresh_policy(out, args.eval_episodes, task=task)


def pm(score: tuple[float, float] | str | None) -> str:
    return f"{score[0]:.4g} ± {score[1]:.2g}" if isinstance(score, tuple) else "-"


def verdict(best: tuple[float, float] | str | None, rand: tuple[float, float] | None) -> tuple[bool, bool]:
    """(beats random, by more than 2 standard errors of the difference)."""
    if not isinstance(best, tuple) or rand is None:
        return False, False
    lead = best[0] - rand[0]
    return lead > 0, lead > 2 * (best[1] ** 2 + rand[1] ** 2) ** 0.5


def row(
    task: str, out: Path, code: int, wall: float, tail: str, fresh: dict[str, Any]
) -> tuple[list[str], dict[str, int]]:
    """The table row of one task and its counts (designed, templates, runnable, trained, beats, clear, and the
    example's beats_ref/clear_ref). `fresh`: the pick's, the random policy's and the example's trusted scores on
    fresh seeds ("pick", "random", "example")."""
    try:
        view = read_run(out)
    except RunFolderError as e:
        counts = {"designed": 0, "templates": 0, "runnable": 0, "trained": 0, "beats": 0, "clear": 0}
        return [task, "-", "-", "-", "-", "-", "-", "-", "no", "-", f"{wall:.0f}", f"exit {code}: {e} / {tail}"], counts
    cands = view.candidates
    templates = sum(1 for c in cands if c.record and c.record.template)
    runnable = sum(1 for c in cands if c.status in ("designed", "trained", "failed"))  # the critic ran and accepted it
    done = trained(view)
    leader = best_trained(view)
    best = leader.record if leader else None
    search = f"{best.id}: {best.fitness or 0.0:.4g} ± {best.fitness_se or 0.0:.2g}" if best else "-"
    pick = fresh.get("pick") if best else None
    rand = fresh.get("random")
    beats, clear = verdict(pick, rand)
    ref_beats, ref_clear = verdict(fresh.get("example"), rand)
    why = "" if done else (first_reason(view) or f"exit {code}: {tail}")
    if isinstance(pick, str):
        why = why or pick
    cells = [task, str(len(cands)), str(templates), str(runnable), str(len(done)), search, pm(pick), pm(rand)]
    cells.append("yes, by > 2 SE" if clear else "yes" if beats else "no")
    example = fresh.get("example")
    if "example" in fresh:
        cells.append(pm(example) + (" (> 2 SE)" if ref_clear else " (above)" if ref_beats else " (not above)"))
    else:
        cells.append("-")
    cells += [f"{wall:.0f}", " ".join(why.split())[:140]]
    counts = {"designed": len(cands), "templates": templates, "runnable": runnable, "trained": len(done)}
    return cells, counts | {
        "beats": int(beats),
        "clear": int(clear),
        "with_example": int("example" in fresh),
        "beats_ref": int(ref_beats),
        "clear_ref": int(ref_clear),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", default="issue25", help="issue25 (default), original, all, or NAME,NAME")
    parser.add_argument("--samples", type=int, default=2)
    parser.add_argument("--timesteps", type=int, default=20000, help="per candidate: the quick start's 20,000")
    parser.add_argument("--timeout", type=float, default=1800, help="seconds per task before it counts as failed")
    parser.add_argument("--nice", type=int, default=10, help="niceness increment of each run (default 10)")
    parser.add_argument("--keep", type=Path, help="keep the run folders here instead of a temporary directory")
    parser.add_argument(
        "--table-from", type=Path, help="the table of the kept run folders in DIR (re-scored on fresh seeds); no runs"
    )
    parser.add_argument("--eval-episodes", type=int, default=20, help="fresh seeds for the pick and random (20)")
    parser.add_argument("--reference", action="store_true", help="also train each shipped task's own example")
    args = parser.parse_args()
    named = {"issue25": ISSUE25, "original": ORIGINAL, "all": all_tasks()}
    tasks = named.get(args.tasks) or args.tasks.split(",")
    head = ["task", "designed", "templates", "runnable", "trained", "search's best ± SE", "pick, fresh ± SE"]
    head += ["random, fresh ± SE", "pick beats random", "example, fresh ± SE"]
    print("offline model: built-in local (first sample of a round: a template; others: the tiny model)", flush=True)
    print(f"budget: {args.samples} sample(s) a task, {args.timesteps} timesteps each", flush=True)
    print(f"fresh: the trusted evaluation worker on {args.eval_episodes} fresh seeds", flush=True)
    print(" | ".join([*head, "wall s", "first reason (if none trained)"]), flush=True)
    totals: dict[str, int] = {}
    measured, beaten = 0, 0
    with tempfile.TemporaryDirectory(prefix="offline-tasks-") as tmp:
        root = args.keep or Path(tmp)
        root.mkdir(parents=True, exist_ok=True)
        for task in tasks:
            name = task.removeprefix("new:")
            new = task.startswith("new:") and not args.table_from
            target = str(new_task(name, root / "specs", args.nice)) if new else task
            out = root / name
            if args.table_from:
                out = args.table_from / name
                if not out.is_dir():
                    continue
                code, wall, tail = 0, float(getattr(read_run(out).summary, "wall_s", 0.0)), ""
            else:
                try:
                    code, wall, tail = run_task(target, out, args)
                except subprocess.TimeoutExpired:
                    code, wall, tail = -1, args.timeout, "timed out"
            spec_path = (args.table_from or root) / "specs" / f"{name}.toml" if task.startswith("new:") else None
            fresh: dict[str, Any] = {
                "random": fresh_random(spec_path or ROOT / "envs" / f"{task}.toml", args.eval_episodes)
            }
            fresh["pick"] = fresh_policy(out, args.eval_episodes)
            if isinstance(fresh["pick"], str):  # a run cut short by --timeout names no best: its best trained one
                fresh["pick"] = fresh_best_trained(out, args.eval_episodes) or fresh["pick"]
            reference = example_reward(task) if args.reference and not task.startswith("new:") else None
            if reference is not None:
                ref_out = (args.table_from or root) / "reference" / name
                if args.table_from:
                    fresh["example"] = fresh_policy(ref_out, args.eval_episodes, task=task)
                else:
                    fresh["example"] = train_reference(task, reference, ref_out, args)
            cells, counts = row(task, out, code, wall, tail, fresh)
            print(" | ".join(cells), flush=True)
            totals = {k: totals.get(k, 0) + v for k, v in counts.items()}
            measured += 1
            beaten += counts["beats"]
    designed = max(1, totals.get("designed", 0))
    print(
        f"candidates: {totals.get('runnable', 0)}/{totals.get('designed', 0)} runnable "
        f"({totals.get('runnable', 0) / designed:.0%}), {totals.get('trained', 0)} trained, "
        f"{totals.get('templates', 0)} of the accepted were templates",
        flush=True,
    )
    print(
        f"tasks whose pick beats the random policy on fresh seeds: {beaten}/{measured} "
        f"({totals.get('clear', 0)} by more than 2 standard errors)",
        flush=True,
    )
    if totals.get("with_example"):
        print(
            f"the tasks' own examples at the same budget beat it on {totals.get('beats_ref', 0)}/"
            f"{totals['with_example']} ({totals.get('clear_ref', 0)} by more than 2 standard errors)",
            flush=True,
        )
    return 0 if beaten == measured else 1


if __name__ == "__main__":
    sys.exit(main())
