"""`rewardsmith export`: a candidate's reward as a standalone module with its provenance, plus a README
showing how to train with it outside rewardsmith's loop (`rewardsmith.RewardWrapper`)."""

from __future__ import annotations

import time
from pathlib import Path

from rewardsmith.errors import OutputFolderError, RunFolderError
from rewardsmith.formatting import cell, search_fitness
from rewardsmith.run_folder.claim import output_folder
from rewardsmith.run_folder.names import REWARD_FILE
from rewardsmith.views.run_view import RunView, read_run
from rewardsmith.views.tables import final_of

README = """# Reward for {task}

`reward.py` was designed by {designer} in rewardsmith run `{run_id}` (candidate {cid}).

- Result: {result}.
- Search fitness of candidate {cid}: {fitness}, success rate {success}.

It needs only numpy and math and defines
`compute_reward(state, action, next_state) -> (float, dict[str, float])`.

Train with it through rewardsmith's Gymnasium wrapper, which builds the `state` objects the reward reads:

```python
import gymnasium as gym
from stable_baselines3 import {algo}

import rewardsmith

env = rewardsmith.RewardWrapper(gym.make("{env_id}"), "reward.py")
model = {algo}("MlpPolicy", env, verbose=1)
model.learn(total_timesteps={timesteps})
```

The wrapper checks the file with rewardsmith's AST gate and runs it in your process: review it first.
"""


def designer_words(model: str) -> str:
    """Who wrote the reward, in words: `the built-in local model (Gemma 3 270M)`, `the model gpt-4o-mini`."""
    if model == "local":
        return "the built-in local model (Gemma 3 270M)"
    if model.startswith("scripted:"):
        return "a scripted test model"
    return f"the model {model}"


def headline(view: RunView) -> str:
    """The run's result: the final retraining (mean ± std over seeds, n, steps), or a note that there is none."""
    final = final_of(view)
    text = final.headline() if final else None
    if final is None or text is None:
        return "no final retraining yet (only the search fitness below)"
    return f"final retraining of {final.candidate or '?'}, fitness {text}, {cell(final.timesteps)} steps"


def export_reward(run_dir: Path, to: Path, *, candidate: str | None = None, force: bool = False) -> Path:
    """Write `to/reward.py` (provenance header + code) and `to/README.md`; returns the reward path. Either file
    already there is an OutputFolderError (nothing written) unless `force`."""
    from rewardsmith.run_folder.names import strip_header

    view = read_run(run_dir)
    c = view.candidate(candidate) if candidate else view.best
    if c is None:
        raise RunFolderError(f"{view.path}: no trained candidate to export yet; pass --candidate ID to export another")
    if c.code is None or c.status in ("rejected", "in progress"):
        raise RunFolderError(f"{view.path}: candidate {c.id} is {c.status} and has no accepted reward.py to export")
    fitness = search_fitness(c.fitness, c.record.fitness_se if c.record else None, view.seed_fitness(c))
    header = [
        f'"""Reward for the rewardsmith task `{view.task}`, exported from run {view.run_id}, candidate {c.id}.',
        "",
        f"task: {view.task}" + (f" ({view.spec.env})" if view.spec else ""),
        f"model: {view.model}",
        f"run: {view.run_id} ({view.path})",
        f"candidate: {c.id} (iteration {c.iteration}, parent {c.parent or 'none'}, status {c.status})",
        f"result: {headline(view)}",
        f"search fitness of {c.id}: {fitness}; success rate: {cell(c.success_rate)}",
        f"exported: {time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime())}",
        "",
        "compute_reward(state, action, next_state) -> (float, dict[str, float]); numpy and math only.",
        '"""',
    ]
    to = Path(to)
    there = [name for name in (REWARD_FILE, "README.md") if (to / name).exists()] if not force else []
    if there:
        raise OutputFolderError(
            f"{to}: {' and '.join(there)} exist; give --to a new folder, or pass --force to replace"
        )
    path = output_folder(to, "--to") / REWARD_FILE
    path.write_text("\n".join(header) + "\n\n" + strip_header(c.code) + "\n", encoding="utf-8")
    spec = view.spec
    (to / "README.md").write_text(
        README.format(
            task=view.task,
            designer=designer_words(view.model),
            result=headline(view),
            run_id=view.run_id,
            cid=c.id,
            fitness=fitness,
            success=cell(c.success_rate),
            algo=spec.train.algo if spec else "PPO",
            env_id=spec.env if spec and ":" not in spec.env else "<your env id>",
            timesteps=spec.train.timesteps if spec else 100_000,
        ),
        encoding="utf-8",
    )
    return path
