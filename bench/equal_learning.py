"""Equal learning at equal env steps: the settings before issue 24 against the per-task settings now in the spec,
or (`--against foreach-adam`) Adam's foreach form against the fused form the training worker takes.

For each task, each seed and each variant, one training of the task's example reward through the sandboxed
training worker, then the trusted evaluation worker on its weights (`search.training.train_and_evaluate`,
what the search pays per candidate). "new" is the spec as it is, trained as a run trains it. "old" is, by default,
the task's `[train]` before the change (the envs and hyperparameters in `OLD` and the network in `OLD_NETS` below,
through a copy of the spec); with `--against foreach-adam`, a copy of the spec whose `policy_kwargs` names SB3's
Adam in its foreach form (`optimizer_kwargs`, which the worker keeps as the spec names it), any shipped task.
Prints per task and variant the trusted fitness
(mean over seeds, and each seed), the training's wall and CPU seconds, and writes the rows as JSON (a resumed
run skips the rows it already has; rows of other variants, such as settings tried and rejected, are kept in the
file and left out of the table), and per task the verdict: the new settings are kept where the new mean is at
least the old mean less one standard error of the difference of the means (`verdict`).

    REWARDSMITH_ALLOW_UID0=1 .venv/bin/python bench/equal_learning.py --steps 50000 --seeds 1 2 \\
        --tasks hopper-hop halfcheetah-run --json docs/equal_learning.json
"""

from __future__ import annotations

import argparse
import json
import math
import re
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rewardsmith.search.training import train_and_evaluate  # noqa: E402
from rewardsmith.task import list_tasks, load_task  # noqa: E402
from rewardsmith.workers.backends.sb3 import lean_policy_kwargs  # noqa: E402
from rewardsmith.workers.executor import make_executor  # noqa: E402

EXAMPLES = ROOT / "envs" / "examples"
SAC_NETS = '{ net_arch = [256, 256], activation_fn = "relu" }'
SAC_ROUND_9 = (
    "metaworld-push",
    "metaworld-pick-place",
    "fetch-push",
    "fetch-pick-and-place",
    "adroit-door",
    "adroit-hammer",
    "shadowhand-block-rotate-z",
    "metaworld-peg-insert-side",
)
"""The eight uncalibrated SAC tasks whose 128x128 networks are tested against 256x256 (docs/performance.md, "Ninth
round"); each spec moves to 128x128 only after its own six trainings."""
LOCOMOTION_NETS = "{ net_arch = { pi = [256, 256], vf = [256, 256] }, log_std_init = %s, ortho_init = false }"
OLD = {  # task -> the [train] settings it had before issue 24 (those the new ones must not learn worse than)
    "hopper-hop": {"n_envs": 1, "hyperparams": {"n_steps": 512, "batch_size": 32, "n_epochs": 5}},
    "halfcheetah-run": {"n_envs": 1, "hyperparams": {"n_steps": 512, "batch_size": 64, "n_epochs": 20}},
    "ant-run": {"n_envs": 1, "hyperparams": {"n_steps": 1024, "batch_size": 64, "n_epochs": 10}},
    "walker2d-walk": {"n_envs": 1, "hyperparams": {"n_steps": 512, "batch_size": 32, "n_epochs": 20}},
    "pusher-push": {"n_envs": 4, "hyperparams": {"n_steps": 512, "batch_size": 64, "n_epochs": 10}},
    "fetch-reach": {},  # SAC (round 32): only the networks changed
    "metaworld-reach": {},
    **{task: {} for task in SAC_ROUND_9},  # SAC (round 36): only the networks change
}
OLD_NETS = {  # task -> its `[train] policy_kwargs` line before issue 24 (a spec copy carries it: the evaluation
    # worker rebuilds the policy from the spec)
    "hopper-hop": LOCOMOTION_NETS % "-2.0",
    "halfcheetah-run": LOCOMOTION_NETS % "-2.0",
    "ant-run": LOCOMOTION_NETS % "-1.0",
    "walker2d-walk": LOCOMOTION_NETS % "-2.0",
    "pusher-push": "{ net_arch = [256, 256] }",
    "fetch-reach": SAC_NETS,
    "metaworld-reach": SAC_NETS,
    **{task: SAC_NETS for task in SAC_ROUND_9},
}


AGAINST = ("issue-24", "foreach-adam", "new-task")
"""What "old" is: the settings before issue 24 (`OLD`, `OLD_NETS`), or the spec with Adam in its foreach form; or,
with "new-task", both variants are the spec with its learner lines as `rewardsmith new-task` writes them for PPO
(its hyperparameters, networks and envs replaced; the env, scorer, budget and evaluation kept): "old" as it writes
them (`NEW_TASK_PPO`), "new" the faster settings tried in round 39 and rejected (`NEW_TASK_PPO_TRIED`;
docs/performance.md, "new-task's PPO settings")."""
NEW_TASK_PPO = 'n_envs = 1\npolicy_kwargs = { net_arch = [256, 256], activation_fn = "relu" }'
"""new-task's PPO learner lines: one env, SB3's PPO defaults, 256x256."""
NEW_TASK_PPO_TRIED = (
    "n_envs = 4   # in-process, stepped in turn\n"
    "hyperparams = { n_steps = 512, batch_size = 128, n_epochs = 10 }\n"
    "policy_kwargs = { net_arch = [64, 64] }"
)
"""The settings four calibrated shipped PPO specs share, tried for new-task in round 39."""
LEARNER_LINE = re.compile(r"(?m)^(n_envs|hyperparams|policy_kwargs) = .*\n")


def new_task_spec(task: str, folder: Path, learner: str) -> Path:
    """A copy of the task's spec whose learner lines are `learner` (`--against new-task`), beside the scorers."""
    text = LEARNER_LINE.sub("", (ROOT / "envs" / f"{task}.toml").read_text())
    text, found = re.subn(r"(?m)^(algo = .*)$", lambda m: f"{m[1]}\n{learner}", text, count=1)
    if found != 1:
        raise SystemExit(f"{task}: no algo line in its spec")
    return spec_copy(task, folder, text)


def spec_copy(task: str, folder: Path, text: str) -> Path:
    """`text` written as the task's spec in `folder`, beside copies of the scorer modules it names."""
    folder.mkdir(parents=True, exist_ok=True)
    for module in (ROOT / "envs").glob("*.py"):
        shutil.copyfile(module, folder / module.name)
    path = folder / f"{task}.toml"
    path.write_text(text)
    return path


def spec_for(task: str, variant: str, folder: Path, against: str) -> Path:
    """The spec a variant trains: the shipped one ("new", except with new-task), or a copy (module docstring)."""
    if against == "new-task":
        from rewardsmith.cli.new_task import SPEC

        written = [line for line in NEW_TASK_PPO.splitlines() if line.replace("{", "{{").replace("}", "}}") not in SPEC]
        if written:
            raise SystemExit(f"new-task no longer writes {written}: update NEW_TASK_PPO")
        return new_task_spec(task, folder / "spec", NEW_TASK_PPO if variant == "old" else NEW_TASK_PPO_TRIED)
    return old_spec(task, folder / "spec", against) if variant == "old" else ROOT / "envs" / f"{task}.toml"


def old_spec(task: str, folder: Path, against: str) -> Path:
    """A copy of the task's spec as "old" trains it (`against`), in `folder` beside copies of the scorer modules."""
    text = (ROOT / "envs" / f"{task}.toml").read_text()
    if against == "issue-24":
        text, found = re.subn(r"(?m)^policy_kwargs = .*$", lambda _: f"policy_kwargs = {OLD_NETS[task]}", text)
    else:  # the spec's own inline table, one key more before its closing brace
        adam = "{ foreach = true, eps = 1e-5 }" if load_task(task).train.algo == "PPO" else "{ foreach = true }"
        pattern = r"(?m)^(policy_kwargs = \{.*)\}(\s*(#.*)?)$"
        text, found = re.subn(pattern, lambda m: f"{m[1].rstrip()}, optimizer_kwargs = {adam} }}{m[2]}", text)
    if found != 1:
        raise SystemExit(f"{task}: expected one policy_kwargs line in its spec, found {found}")
    path = spec_copy(task, folder, text)
    if against == "foreach-adam":
        adam_kwargs = (lean_policy_kwargs(load_task(path)) or {}).get("optimizer_kwargs", {})
        if not adam_kwargs.get("foreach") or adam_kwargs.get("fused"):
            raise SystemExit(f"{task}: the spec copy's Adam is not the foreach form: {adam_kwargs}")
    return path


def one(task: str, variant: str, steps: int, seed: int, episodes: int, folder: Path, against: str) -> dict:
    """One training and trusted evaluation; its fitness and wall seconds."""
    options = OLD[task] if variant == "old" and against == "issue-24" else {}
    spec = spec_for(task, variant, folder, against)
    started = time.perf_counter()
    result, evaluation = train_and_evaluate(
        spec,
        EXAMPLES / f"{task.replace('-', '_')}.py",
        folder / "job",
        timesteps=steps,
        seed=seed,
        eval_episodes=episodes,
        executor=make_executor("local", 1),
        options=options,
    )
    if evaluation is None:
        raise SystemExit(f"{task} {variant} seed {seed}: {result.status}: {result.error}")
    train_wall = float((result.summary or {}).get("wall_s", 0.0))
    return {
        "task": task,
        "variant": variant,
        **({"against": against} if against != "issue-24" else {}),
        "seed": seed,
        "steps": steps,
        "fitness": evaluation.fitness_mean,
        "train_wall_s": train_wall,
        "train_cpu_s": float((result.summary or {}).get("cpu_s", 0.0)),  # the worker's own: load disturbs it less
        "job_wall_s": round(time.perf_counter() - started, 2),
    }


def key(row: dict) -> tuple:
    """What a row measured: (task, variant, steps, against)."""
    return row["task"], row["variant"], row["steps"], row.get("against", "issue-24")


def gap_and_error(task: str, steps: int, rows: list[dict], against: str) -> tuple[float, float] | None:
    """New mean less old mean trusted fitness, and the standard error of that difference (seeds' spread, each
    side's n seeds); None with fewer than two seeds a side."""
    fits = {v: [r["fitness"] for r in rows if key(r) == (task, v, steps, against)] for v in ("old", "new")}
    if min(len(f) for f in fits.values()) < 2:
        return None
    error = math.sqrt(sum(statistics.variance(f) / len(f) for f in fits.values()))
    return statistics.mean(fits["new"]) - statistics.mean(fits["old"]), error


def verdict(task: str, steps: int, rows: list[dict], against: str = "issue-24") -> str:
    """The rule for keeping the new settings: not worse, i.e. the new mean trusted fitness is at least the old
    mean less one standard error of the difference of the two means."""
    found = gap_and_error(task, steps, rows, against)
    if found is None:
        return "verdict: too few seeds"
    gap, error = found
    keep = "keep new (not worse)" if gap >= -error else "keep old (new is worse)"
    return f"verdict: new - old = {gap:+.3f}, standard error of the difference {error:.3f}: {keep}"


def pooled_verdict(rows: list[dict], against: str) -> str:
    """Over every (task, steps) of `against` in `rows`: each task's z (the gap over its standard error), and the
    rule written before the fused-Adam trainings (docs/performance.md, "Eighth round"): the new form is kept if the
    pooled gap, the sum of the z over the square root of their number, is at least -1 and no task's z is below -2."""
    measured = sorted({(r["task"], r["steps"]) for r in rows if r.get("against", "issue-24") == against})
    zs: dict[str, float | None] = {}
    for task, steps in measured:
        found = gap_and_error(task, steps, rows, against)
        zs[f"{task} ({steps:,} steps)"] = None if found is None else found[0] / max(found[1], 1e-12)
    known = [z for z in zs.values() if z is not None]
    if not known:
        return "pooled: no task with two seeds a side"
    pooled = sum(known) / math.sqrt(len(known))
    keep = "keep new (not worse)" if pooled >= -1 and min(known) >= -2 else "keep old"
    each = ", ".join(f"{name} z {z:+.2f}" if z is not None else f"{name} too few seeds" for name, z in zs.items())
    return f"pooled: {each}; pooled gap {pooled:+.2f} over {len(known)}: {keep}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tasks", nargs="+", default=["hopper-hop", "halfcheetah-run"])
    parser.add_argument("--against", choices=AGAINST, default="issue-24", help="what the old variant is")
    parser.add_argument("--steps", type=int, default=50_000)
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--episodes", type=int, default=5)
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument(
        "--pooled", action="store_true", help="only print the pooled verdict over every task and budget in --json"
    )
    args = parser.parse_args()
    unknown = sorted(set(args.tasks) - set(OLD if args.against == "issue-24" else [t.name for t in list_tasks()]))
    if unknown:
        parser.error(f"no {args.against} settings for: {', '.join(unknown)}")
    rows = json.loads(args.json.read_text()) if args.json and args.json.is_file() else []  # resumes a run
    if args.pooled:
        print(pooled_verdict(rows, args.against))
        return
    with tempfile.TemporaryDirectory(prefix="equal-learning-") as tmp:
        for task in args.tasks:
            for seed in args.seeds:
                for variant in ("old", "new"):  # alternating, so that a change of load hits both alike
                    done = (task, variant, args.steps, args.against)
                    if any(key(r) == done and r["seed"] == seed for r in rows):
                        continue
                    folder = Path(tmp) / f"{task}-{variant}-{seed}"
                    row = one(task, variant, args.steps, seed, args.episodes, folder, args.against)
                    rows.append(row)
                    print(json.dumps(row), flush=True)
                    if args.json:
                        args.json.write_text(json.dumps(rows, indent=1))
    print(
        f"\n{'task':16} {'variant':7} {'fitness (mean)':>14} {'per seed':30} {'train wall s (mean)':>19} "
        f"{'train CPU s (mean)':>18}"
    )
    for task in args.tasks:
        for variant in ("old", "new"):
            mine = [r for r in rows if key(r) == (task, variant, args.steps, args.against)]
            fits = [r["fitness"] for r in mine]
            seeds = " ".join(f"{f:.3g}" for f in fits)
            wall = statistics.mean(r["train_wall_s"] for r in mine)
            cpus = [r["train_cpu_s"] for r in mine if r.get("train_cpu_s")]
            cpu = f"{statistics.mean(cpus):18.1f}" if cpus else f"{'-':>18}"
            print(f"{task:16} {variant:7} {statistics.mean(fits):14.3f} {seeds:30} {wall:19.1f} {cpu}")
        print(f"{task:16} {verdict(task, args.steps, rows, args.against)}")


if __name__ == "__main__":
    main()
