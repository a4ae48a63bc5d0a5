"""The screen worker (`screen` mode): a candidate reward summed over archived episodes, in the sandbox.

Reads the archives (`rewardsmith.workers.trajectories`) before lock-down, rebuilds `State`s from
obs/qpos/qvel, then locks down, loads the candidate reward and sums it over every episode; writes the
returns to `screen.json`. The parent (`rewardsmith.stages.screen`) judges them against the fitness labels
it read itself.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from rewardsmith.errors import RewardFileError
from rewardsmith.files import write_json_atomic
from rewardsmith.reward.contract import validate_result
from rewardsmith.reward.state import State, schema_for
from rewardsmith.run_folder.records import SCREEN_FILE, SUMMARY_FILE
from rewardsmith.task import make_env
from rewardsmith.workers.job import WorkerJob
from rewardsmith.workers.trajectories import Episode, load_episodes


def run_screen_job(job: WorkerJob) -> dict[str, Any]:
    """Read the archives, sandbox, load the reward, sum it over every archived episode; write screen.json."""
    from rewardsmith.workers.main import enter_sandbox, load_job_reward, read_job_reward

    spec = job.task()
    archives = {str(label): load_episodes(Path(path)) for label, path in job.options["trajectories"].items()}
    env = make_env(spec)
    schema, dt = schema_for(env), float(getattr(env.unwrapped, "dt", 0.0))
    env.close()
    replays = [
        (label, i, _replay(episode, schema, dt))
        for label, episodes in archives.items()
        for i, episode in enumerate(episodes)
    ]
    source = read_job_reward(job)
    sandbox = enter_sandbox(job)  # before any of the reward's code runs, module body included
    reward_fn = load_job_reward(job, source)
    rows = [
        {
            "label": label,
            "episode": i,
            "steps": len(actions),
            "return": episode_return(reward_fn, states, actions, f"episode {i} of candidate {label}"),
        }
        for label, i, (states, actions) in replays
    ]
    report = {"episodes": rows, "sandbox": sandbox}
    write_json_atomic(job.out_dir / SCREEN_FILE, report)
    write_json_atomic(job.out_dir / SUMMARY_FILE, {"status": "screened", "episodes": len(rows)})
    return report


def _replay(episode: Episode, schema, dt: float) -> tuple[list[State], list[np.ndarray]]:
    states = [
        State.from_arrays(episode.obs[t], episode.qpos[t], episode.qvel[t], dt, schema, time=t * dt)
        for t in range(episode.steps + 1)
    ]
    actions = []
    for action in episode.action:
        frozen = np.array(action, dtype=np.float64)
        frozen.flags.writeable = False
        actions.append(frozen)
    return states, actions


def episode_return(reward_fn, states: list[State], actions: list[np.ndarray], where: str) -> float:
    """The reward summed over one episode's transitions; an exception or contract breach names its step."""
    total = 0.0
    for t, action in enumerate(actions):
        try:
            value, _ = validate_result(reward_fn(states[t], action, states[t + 1]))
        except Exception as e:  # noqa: BLE001 - untrusted code; reported as the candidate's fault
            what = str(e) if isinstance(e, RewardFileError) else f"{type(e).__name__}: {e}"
            raise RewardFileError(f"{what} (on {where}, step {t})") from None
        total += value
    return total
