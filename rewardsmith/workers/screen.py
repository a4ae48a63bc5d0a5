"""The `screen` worker mode: a candidate reward summed over every episode of several recorded archives.

It reads the `trajectories.npz` archives before lock-down, rebuilds `State`s with the replay machinery of
`rewardsmith.workers.replay`, locks down, loads the reward and writes each episode's return to `screen.json`;
the parent (`rewardsmith.stages.screen`) judges them against the fitness labels it read itself.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rewardsmith.files import write_json_atomic
from rewardsmith.run_folder.records import SCREEN_FILE, SUMMARY_FILE
from rewardsmith.workers.job import WorkerJob
from rewardsmith.workers.replay import episode_return, make_replayer
from rewardsmith.workers.trajectories import load_episodes


def run_screen_job(job: WorkerJob) -> dict[str, Any]:
    """Read the archives, sandbox, load the reward, sum it over every archived episode; write screen.json."""
    from rewardsmith.workers.main import enter_sandbox, load_job_reward, read_job_reward

    archives = {str(label): load_episodes(Path(path)) for label, path in job.options["trajectories"].items()}
    replayer = make_replayer(job.task())
    source = read_job_reward(job)
    sandbox = enter_sandbox(job)  # before any of the reward's code runs, module body included
    reward_fn = load_job_reward(job, source)
    rows = [
        {
            "label": label,
            "episode": i,
            "steps": episode.steps,
            "return": episode_return(reward_fn, replayer.transitions(episode), f"episode {i} of candidate {label}"),
        }
        for label, episodes in archives.items()
        for i, episode in enumerate(episodes)
    ]
    report = {"episodes": rows, "sandbox": sandbox}
    write_json_atomic(job.out_dir / SCREEN_FILE, report)
    write_json_atomic(job.out_dir / SUMMARY_FILE, {"status": "screened", "episodes": len(rows)})
    return report
