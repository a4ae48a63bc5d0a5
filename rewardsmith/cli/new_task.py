"""The `new-task` verb: a spec and a scorer skeleton for an env, with the env's real names filled in; `check-task`:
the same checks `run` makes of a spec first, and its calibration offered (or run)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import typer

from rewardsmith.cli import app, console
from rewardsmith.cli.core import SandboxMinimumOpt, TaskArg, require_sandbox_here
from rewardsmith.errors import EnvKwargsError, RewardsmithError, TaskSpecError

SPEC = '''name = "{name}"
env = "{env}"
{env_kwargs}{imports}human_baseline = false         # true if the env's own reward already rewards this task
description = """
TODO: the task in one line (this is what the LLM is asked to do).
TODO: one to three lines of detail: what must hold, what must be avoided.
"""
success = "TODO: when the task counts as done, in words and units."

[fitness]                      # trusted; never shown to the LLM
scorer = "{module}:{cls}"
kwargs = {kwargs}
# floor = "0 until the object moves: random, idle and held actions never touch it"  # only if `check-task` says so

{train}
[search]
iterations = 3
samples = 4
'''

GENERIC_TRAIN = """[train]
algo = "{algo}"
timesteps = 100_000
final_timesteps = 300_000
n_envs = 1
eval_freq = 10_000
eval_episodes = 5
policy_kwargs = {{ net_arch = [256, 256], activation_fn = "relu" }}
"""
"""The `[train]` of an env no shipped spec uses: SAC for continuous actions, PPO for discrete ones."""


TASK_CHOOSING_KWARGS = ("env_name", "goal", "seed", "disable_env_checker")
"""Constructor kwargs that pick a task or a draw on the same robot (Meta-World's env_name): two specs that differ
only in these train the same robot, so one's [train] fits the other; any other kwarg (continuous actions, falls
that end the episode) makes another problem."""


def shipped_train(env_id: str, env_kwargs: dict[str, Any]) -> tuple[str, str] | None:
    """(task, its `[train]` table as written, comments kept) of a shipped spec for the same env and the same
    constructor kwargs (`TASK_CHOOSING_KWARGS` aside), a calibrated one first; None if there is none. Its settings
    were tuned for this robot and its budget measured there, which a generic default's were not."""
    from rewardsmith.task import ENVS_DIR, list_tasks, table_span

    def robot(kwargs: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in kwargs.items() if k not in TASK_CHOOSING_KWARGS}

    same = sorted(
        (not (spec.calibration and spec.calibration.calibrated), spec.name, spec.source)
        for spec in list_tasks(ENVS_DIR)
        if spec.env == env_id and robot(spec.env_kwargs) == robot(env_kwargs) and spec.source is not None
    )
    for _, name, source in same:
        lines = source.read_text(encoding="utf-8").splitlines()
        if span := table_span(lines, "train"):
            return name, "\n".join(lines[span[0] : span[1]]).rstrip() + "\n"
    return None


SCORER = '''"""Trusted scorer for `{name}` ({env}): edit `step` and `result` to measure the task.

It sees the same `State` snapshots a reward sees (`state.obs`{names_hint}) and, through `self.env`,
the unwrapped env (a scorer-only accessor: reward code never gets it). It never reads the env's reward
or `info`. `rewardsmith run` refuses to start if random- and zero-action episodes cannot be scored,
and warns when every episode scores the same.
"""

from __future__ import annotations

import numpy as np

from rewardsmith.reward.fitness import EpisodeScorer
from rewardsmith.reward.state import State


class {cls}(EpisodeScorer):
    """TODO: what the fitness measures, in which unit, and when an episode is a success."""

    def __init__(self, {init_args}success_threshold: float = 1.0) -> None:
{init_body}        self.success_threshold = success_threshold
        self.start = self.latest = None

    @property
    def unit(self) -> str:
        """Fitness unit and direction, as the designer is told it."""
        return "TODO: unit; higher is better"

    def _measure(self, state: State) -> np.ndarray:
        # {measure_comment}
        return {measure}

    def reset(self, state: State) -> None:
        self.start = self.latest = self._measure(state)

    def step(self, state: State, action: np.ndarray, next_state: State) -> None:
        self.latest = self._measure(next_state)

    def result(self) -> tuple[float, bool]:
{result}

    def sparse_reward(self, state: State, action: np.ndarray, next_state: State) -> float:
{sparse}
'''


DISPLACEMENT = (
    """        progress = float(np.linalg.norm(self.latest - self.start))  # TODO: the task's own measure
        return progress, progress >= self.success_threshold""",
    """        return float(np.linalg.norm(self._measure(next_state) - self.start) >= self.success_threshold)""",
)
"""The skeleton's fitness where the env has no goal: how far the measured quantity moved from its start."""
GOAL_DISTANCE = (
    """        distance = float(np.linalg.norm(self.latest))  # TODO: the task's own goal, if not the env's
        return -distance, distance <= self.success_threshold""",
    """        return float(np.linalg.norm(self._measure(next_state)) <= self.success_threshold)""",
)
"""The skeleton's fitness for a goal-conditioned env: minus the final distance to the env's goal, success within
the threshold (Fetch's own 0.05 m)."""


def _env_kwargs(pairs: list[str]) -> dict:
    """`--env-kwarg KEY=VALUE` pairs as a dict: each VALUE read as a TOML value (`3`, `true`, `[1, 2]`, `"x"`), else
    as a string."""
    import tomllib

    kwargs: dict = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key.strip()):
            raise TaskSpecError(f"--env-kwarg {pair!r}: write KEY=VALUE, e.g. env_name=drawer-close-v3")
        try:
            kwargs[key.strip()] = tomllib.loads(f"v = {value.strip()}")["v"]
        except tomllib.TOMLDecodeError:
            kwargs[key.strip()] = value.strip()
    return kwargs


def _toml_inline(kwargs: dict) -> str:
    """A dict as a TOML inline table (the values `_env_kwargs` reads: strings, numbers, booleans, lists)."""
    import json

    def value(v) -> str:
        return ("true" if v else "false") if isinstance(v, bool) else json.dumps(v)

    return "{ " + ", ".join(f"{k} = {value(v)}" for k, v in kwargs.items()) + " }"


def _env_facts(name: str, env_id: str, env_kwargs: dict, imports: list[str]) -> dict:
    """Build the env once and read what a skeleton needs: names, action kind, observation parts."""
    from rewardsmith.reward.state import schema_for
    from rewardsmith.reward.task_check import check_observation_fits
    from rewardsmith.task import TaskSpec, make_env

    probe = TaskSpec.model_validate(
        {
            "name": name,
            "env": env_id,
            "env_kwargs": env_kwargs,
            "imports": imports,
            "description": "probe the env",
            "fitness": {"scorer": "x:Y"},
        }
    )
    try:
        env = make_env(probe)
    except EnvKwargsError as e:
        raise TaskSpecError(f"{e}; pass them with --env-kwarg KEY=VALUE") from None
    try:
        check_observation_fits(env_id, env.observation_space)
        obs, _ = env.reset(seed=0)
        schema = schema_for(env)
        continuous = hasattr(env.action_space, "low")
        return {
            "bodies": [b for b in (schema.body_names[1:] if schema else []) if not b.startswith("_body_")],
            "sites": list(schema.site_names) if schema else [],
            "joints": list(schema.joints) if schema else [],
            "dict_obs": isinstance(obs, dict),
            "algo": "SAC" if continuous else "PPO",
        }
    finally:
        env.close()


@app.command("new-task")
def new_task(
    name: str = typer.Argument(..., help="The task's name: lowercase letters, digits, - and _."),
    env: str = typer.Option(..., "--env", help="Gymnasium id, e.g. Ant-v5, Meta-World/MT1, FetchPush-v4."),
    imports: list[str] = typer.Option([], "--imports", help="Module(s) to import first so the id resolves."),
    env_kwarg: list[str] = typer.Option(
        [],
        "--env-kwarg",
        help="KEY=VALUE for the env's constructor, repeatable (Meta-World/MT1 needs env_name=drawer-close-v3).",
    ),
    folder: Path = typer.Option(Path("."), help="Where to write NAME.toml and its scorer module."),
    force: bool = typer.Option(False, help="Overwrite existing files."),
) -> None:
    """Write a spec and a scorer skeleton for ENV, with its real body, site and joint names filled in."""
    if not re.fullmatch(r"[a-z0-9][a-z0-9_-]*", name):
        raise TaskSpecError(f"task name {name!r}: use lowercase letters, digits, '-' and '_'")
    env_kwargs = _env_kwargs(list(env_kwarg))
    facts = _env_facts(name, env, env_kwargs, list(imports))
    module = "scorer_" + name.replace("-", "_")
    cls = "".join(part.capitalize() for part in re.split(r"[-_]", name)) + "Score"
    spec_path, scorer_path = folder / f"{name}.toml", folder / f"{module}.py"
    for path in (spec_path, scorer_path):
        if path.exists() and not force:
            raise TaskSpecError(f"{path}: exists (use --force to overwrite)")
    result, sparse = DISPLACEMENT
    if facts["dict_obs"]:
        init_args, init_body, kwargs = "", "", "{ success_threshold = 0.05 }"
        measure = "np.asarray(state.achieved_goal) - np.asarray(state.goal)"
        comment = "goal-conditioned env: the offset of the achieved goal from the env's goal (state.goal)"
        result, sparse = GOAL_DISTANCE
    elif facts["bodies"]:
        body = facts["bodies"][0]
        init_args, init_body = f'body: str = "{body}", ', "        self.body = body\n"
        kwargs = f'{{ body = "{body}", success_threshold = 1.0 }}'
        measure = "state.body(self.body).pos"
        comment = f"bodies: {', '.join(facts['bodies'][:20])}; sites: {', '.join(facts['sites'][:20]) or 'none'}"
    else:
        init_args, init_body, kwargs = "", "", "{ success_threshold = 1.0 }"
        measure, comment = "np.asarray(state.obs)", "no MuJoCo model: read state.obs (see `rewardsmith describe`)"
    names_hint = ", `state.body(name)`, `state.joint(name)`, `state.site(name)`" if facts["bodies"] else ""
    from rewardsmith.run_folder.claim import output_folder

    output_folder(folder, "--folder")  # one line, exit 2, for a folder that cannot be made or written
    imports_line = f"imports = {list(imports)!r}\n".replace("'", '"') if imports else ""
    tuned = shipped_train(env, env_kwargs)
    if tuned is None:
        train = GENERIC_TRAIN.format(algo=facts["algo"])
    else:
        train = f"# the [train] of the shipped spec `{tuned[0]}` (same env): settings tuned for it\n{tuned[1]}"
    spec_path.write_text(
        SPEC.format(
            name=name,
            env=env,
            env_kwargs=f"env_kwargs = {_toml_inline(env_kwargs)}\n" if env_kwargs else "",
            imports=imports_line,
            module=module,
            cls=cls,
            kwargs=kwargs,
            train=train,
        )
    )
    scorer_path.write_text(
        SCORER.format(
            name=name,
            env=env,
            cls=cls,
            names_hint=names_hint,
            init_args=init_args,
            init_body=init_body,
            measure=measure,
            measure_comment=comment,
            result=result,
            sparse=sparse,
        )
    )
    console.print(f"wrote {spec_path} and {scorer_path}")
    if tuned is not None:
        console.print(
            f"[train]: the shipped spec `{tuned[0]}`'s (same env), tuned for it", highlight=False, markup=False
        )
    if facts["joints"]:
        console.print(f"joints: {', '.join(facts['joints'][:30])}", highlight=False)
    console.print(
        f"next: edit the TODOs, then `rewardsmith check-task {spec_path}` (env, scorer, calibration) and "
        f"`rewardsmith check {spec_path} REWARD.py`; put the folder in REWARDSMITH_TASKS to use the task by name; "
        f"once a reward works, `rewardsmith check-task {spec_path} --reward REWARD.py --calibrate` measures whether "
        "the search budget tells it from a weak one and records it in the spec",
        highlight=False,
        markup=False,
        soft_wrap=True,  # commands to copy: never broken across lines
    )


@app.command("check-task")
def check_task(
    task: str = TaskArg,
    reward: Path | None = typer.Option(
        None, help="A reward that works, the good arm of --calibrate (default: the example)."
    ),
    calibrate: bool = typer.Option(
        False,
        "--calibrate",
        help="Calibrate the search budget now (3 seeds, alive and effort) and record it in the spec.",
    ),
    out: Path | None = typer.Option(
        None, help="Folder for --calibrate's trainings (default: runs/calibration/<task>)."
    ),
    sandbox_minimum: str | None = SandboxMinimumOpt,
) -> None:
    """Check a task spec before a run, as `run` does first: it loads, its env builds, its trusted scorer scores
    random- and zero-action episodes, the learner accepts its `[train]` settings, and the env description the LLM
    reads builds. Then say whether its search budget is calibrated, with the exact command that calibrates it;
    --calibrate runs that calibration here (what it costs is printed first)."""
    from rewardsmith.cli.calibrate import calibrate_and_print, calibration_cost
    from rewardsmith.reward.task_check import validate_task
    from rewardsmith.run_folder.claim import RUNS_DIR
    from rewardsmith.search.calibration import write_spec_calibration
    from rewardsmith.stages.env_description import description_for_run
    from rewardsmith.task import load_task
    from rewardsmith.workers.backends import check_training_settings

    spec = load_task(task)
    warnings = validate_task(spec)
    check_training_settings(spec)
    description = description_for_run(spec)
    for warning in warnings:
        console.print(f"warning: {warning}", highlight=False, markup=False)
    console.print(
        f"{spec.name}: the spec loads, the env builds, the scorer scores random and zero-action episodes, "
        f"{spec.train.algo} accepts the [train] settings",
        highlight=False,
        markup=False,
        soft_wrap=True,
    )
    console.print(
        f"{spec.name}: the environment description builds ({len(description.splitlines())} lines;"
        f" `rewardsmith describe {spec.command_target()}` prints it as the LLM reads it)",
        highlight=False,
        markup=False,
        soft_wrap=True,
    )
    console.print(f"{spec.name}: search budget {spec.calibration_status()}", highlight=False, markup=False)
    if not calibrate:
        if spec.calibration is None or not spec.calibration.current(spec.train.timesteps):  # unmeasured or stale
            console.print(
                f"calibrate it (~{calibration_cost(spec):.1f} CPU-h here): {spec.calibrate_command(reward)}",
                highlight=False,
                markup=False,
                soft_wrap=True,
            )
        return
    good = reward or spec.example_reward
    if good is None or spec.source is None:
        raise RewardsmithError(f"{spec.name} has no example reward: name one that works with --reward REWARD.py")
    if not Path(good).is_file():
        raise RewardsmithError(f"{good}: no such reward file")
    require_sandbox_here(sandbox_minimum)
    console.print(f"this trains for ~{calibration_cost(spec):.1f} CPU-h (resumes if cut short)", highlight=False)
    report = calibrate_and_print(spec, Path(good), out or RUNS_DIR / "calibration" / spec.name, up_to=1.0)
    write_spec_calibration(spec.source, report.spec_record())
    console.print(f"wrote [calibration] to {spec.source}", highlight=False, markup=False)
