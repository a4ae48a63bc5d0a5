"""The `new-task` verb: a spec and a scorer skeleton for an env, with the env's real names filled in."""

from __future__ import annotations

import re
from pathlib import Path

import typer

from rewardsmith.cli import app, console
from rewardsmith.errors import TaskSpecError

SPEC = '''name = "{name}"
env = "{env}"
{imports}human_baseline = false         # true if the env's own reward already rewards this task
description = """
TODO: the task in one line (this is what the LLM is asked to do).
TODO: one to three lines of detail: what must hold, what must be avoided.
"""
success = "TODO: when the task counts as done, in words and units."

[fitness]                      # trusted; never shown to the LLM
scorer = "{module}:{cls}"
kwargs = {kwargs}

[train]
algo = "{algo}"
timesteps = 100_000
final_timesteps = 300_000
n_envs = 1
eval_freq = 10_000
eval_episodes = 5
policy_kwargs = {{ net_arch = [256, 256], activation_fn = "relu" }}

[search]
iterations = 3
samples = 4
'''

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
        progress = float(np.linalg.norm(self.latest - self.start))  # TODO: the task's own measure
        return progress, progress >= self.success_threshold

    def sparse_reward(self, state: State, action: np.ndarray, next_state: State) -> float:
        return float(np.linalg.norm(self._measure(next_state) - self.start) >= self.success_threshold)
'''


def _env_facts(env_id: str, imports: list[str]) -> dict:
    """Build the env once and read what a skeleton needs: names, action kind, observation parts."""
    from rewardsmith.reward.state import schema_for
    from rewardsmith.task import TaskSpec, make_env

    probe = TaskSpec.model_validate(
        {
            "name": "probe",
            "env": env_id,
            "imports": imports,
            "description": "probe the env",
            "fitness": {"scorer": "x:Y"},
        }
    )
    env = make_env(probe)
    try:
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
    folder: Path = typer.Option(Path("."), help="Where to write NAME.toml and its scorer module."),
    force: bool = typer.Option(False, help="Overwrite existing files."),
) -> None:
    """Write a spec and a scorer skeleton for ENV, with its real body, site and joint names filled in."""
    if not re.fullmatch(r"[a-z0-9][a-z0-9_-]*", name):
        raise TaskSpecError(f"task name {name!r}: use lowercase letters, digits, '-' and '_'")
    facts = _env_facts(env, list(imports))
    module = "scorer_" + name.replace("-", "_")
    cls = "".join(part.capitalize() for part in re.split(r"[-_]", name)) + "Score"
    spec_path, scorer_path = folder / f"{name}.toml", folder / f"{module}.py"
    for path in (spec_path, scorer_path):
        if path.exists() and not force:
            raise TaskSpecError(f"{path}: exists (use --force to overwrite)")
    if facts["dict_obs"]:
        init_args, init_body, kwargs = "", "", "{ success_threshold = 0.05 }"
        measure, comment = "np.asarray(state.achieved_goal)", "goal-conditioned env: state.goal, state.achieved_goal"
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
    spec_path.write_text(
        SPEC.format(name=name, env=env, imports=imports_line, module=module, cls=cls, kwargs=kwargs, algo=facts["algo"])
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
        )
    )
    console.print(f"wrote {spec_path} and {scorer_path}")
    if facts["joints"]:
        console.print(f"joints: {', '.join(facts['joints'][:30])}", highlight=False)
    console.print(
        f"next: edit the TODOs, then `rewardsmith describe {spec_path}` and `rewardsmith check {spec_path} REWARD.py`;"
        f" put the folder in REWARDSMITH_TASKS to use the task by name; once a reward works, `rewardsmith calibrate"
        f" {spec_path} --reward REWARD.py --write-spec` checks that the search budget tells it from a weak one",
        highlight=False,
    )
