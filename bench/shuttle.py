"""The shuttle check (`rewardsmith.workers.shuttle`) on recorded archives: which pool rewards pay more for moving
back and forth than for holding still, by label. No training, no sandbox (pool rewards are the project's own files).

The product runs the check in the critic's worker on its own random-action rollouts; this runs the same rule
(`episode_gains`, `MIN_GAIN`, `MIN_SHARE`, `matches`) on archived episodes (`trajectories.npz`: a run's evaluations,
label trainings, or `evaluate_policy(..., random_policy=True)`), each transition played backwards and each state
held still by the product's own `Mirrorer` (observations the env recomputes). Prints per reward: episodes judged, the
largest and median episode gain, the share of episodes that pay, and whether it is flagged; and the largest
difference between a recomputed and a recorded observation (an archive over `MATCH_TOLERANCE` is not judged).

    REWARDSMITH_ALLOW_UID0=1 .venv/bin/python bench/shuttle.py reacher-reach 'runs/.../eval/trajectories.npz' \
        --episodes 20
    REWARDSMITH_ALLOW_UID0=1 .venv/bin/python bench/shuttle.py --cost fetch-reach metaworld-push  # what it costs

Measured in round 37, re-run in round 38 through `Mirrorer` (`bench/replay_tables/README.md`, "A shuttle check").
"""

from __future__ import annotations

import argparse
import glob
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rewardsmith.reward.progress import load_with_progress  # noqa: E402
from rewardsmith.reward.state import Snapshotter  # noqa: E402
from rewardsmith.task import load_task, make_env  # noqa: E402
from rewardsmith.workers.replay import Replayer  # noqa: E402
from rewardsmith.workers.shuttle import (  # noqa: E402
    MATCH_TOLERANCE,
    MIN_GAIN,
    MIN_SHARE,
    Mirrorer,
    Recorded,
    episode_gains,
    matches,
    rewards_of,
)
from rewardsmith.workers.trajectories import Episode, load_episodes  # noqa: E402


class ArchiveMirror:
    """Archived episodes, mirrored by the product's `Mirrorer` (its recomputed observations and its `Mirror`s)."""

    def __init__(self, task: str) -> None:
        self.env = make_env(load_task(task))
        self.base = self.env.unwrapped
        self.replayer = Replayer(self.env)
        self.mirrorer = Mirrorer(self.env, Snapshotter(self.env, self.replayer.schema))
        self.error = 0.0
        self.matched = True

    def judge(self, episode: Episode, rewards: dict) -> dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """{reward name: (f, b, h)} on one episode; records the largest observation mismatch in `error` (and goes on
        past the product's tolerance, for information)."""
        for name, values in episode.model.items():
            getattr(self.base.model, name)[:] = values.reshape(getattr(self.base.model, name).shape)
        if "desired_goal" in episode.parts and hasattr(self.base, "goal"):  # Fetch: the episode's goal
            self.base.goal = episode.parts["desired_goal"][0].copy()
        rec = [self.recorded(episode, s) for s in range(episode.steps + 1)]
        for obs, r in zip(self.mirrorer.recomputed(rec), rec):
            pairs = [(obs[k], r.obs[k]) for k in r.obs] if isinstance(r.obs, dict) else [(obs, r.obs)]
            self.error = max(self.error, max(float(np.abs(np.asarray(a, float) - b).max()) for a, b in pairs))
            self.matched &= matches(obs, r.obs)
        forward = list(self.replayer.transitions(episode))
        mirror = self.mirrorer.build(rec, 0, np.zeros_like(forward[0][1]))
        out = {}
        for name, fn in rewards.items():
            try:
                triple = rewards_of(fn, forward, mirror)
            except Exception:  # noqa: BLE001 - a buggy pool reward: not judged
                continue
            if np.isfinite(np.concatenate(triple)).all():
                out[name] = triple
        return out

    @staticmethod
    def recorded(episode: Episode, s: int) -> Recorded:
        """State `s` of an archived episode as the critic would have recorded it."""
        mocap = episode.mocap_pos is not None and episode.mocap_quat is not None
        return Recorded(
            episode.qpos[s],
            episode.qvel[s],
            float(episode.time[s]) if episode.time is not None else 0.0,
            episode.mocap_pos[s] if mocap else None,
            episode.mocap_quat[s] if mocap else None,
            {k: v[s] for k, v in episode.parts.items()} if episode.parts else episode.obs[s],
        )


def cost(tasks: list[str], repeats: int = 3) -> None:
    """The critic's rollouts with and without the shuttle check's mirrored states, side by side (best of `repeats`)."""
    import time

    from rewardsmith.workers.critic import DEFAULTS, collect_transitions

    print(f"{'task':28} {'rollouts s':>10} {'+ mirrors s':>11} {'ratio':>6} {'rollouts judged':>15}")
    for task in tasks:
        spec = load_task(task)
        times: dict[bool, float] = {}
        judged = 0
        for mirrored in (False, True) * repeats:
            mirrors: list = []
            start = time.perf_counter()
            collect_transitions(
                spec, DEFAULTS["transitions"], DEFAULTS["episode_steps"], 0, mirrors=mirrors if mirrored else None
            )
            took = time.perf_counter() - start
            times[mirrored] = min(times.get(mirrored, took), took)
            judged = len(mirrors) if mirrored else judged
        print(f"{task:28} {times[False]:10.3f} {times[True]:11.3f} {times[True] / times[False]:6.2f} {judged:15}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("task", nargs="?")
    parser.add_argument("archives", nargs="?", help="a glob of trajectories.npz files")
    parser.add_argument(
        "--cost", nargs="+", metavar="TASK", help="only time the critic's rollouts with and without mirrors"
    )
    parser.add_argument("--episodes", type=int, default=5, help="episodes per archive")
    parser.add_argument("--archives", dest="limit", type=int, default=12, help="archives, evenly spaced")
    args = parser.parse_args()
    if args.cost:
        return cost(args.cost)
    if not args.task or not args.archives:
        parser.error("TASK and ARCHIVES are required without --cost")
    pool = ROOT / "bench" / "pools" / args.task
    rewards = {}
    for file in sorted(pool.glob("*.py")):
        try:
            rewards[file.stem] = load_with_progress(file.read_text(), filename=file.name, gate=False)[0]
        except Exception as e:  # noqa: BLE001 - a pool's buggy file
            print(f"not loaded: {file.stem}: {type(e).__name__}")
    paths = sorted(glob.glob(args.archives))
    paths = paths[:: max(1, len(paths) // args.limit)]
    mirror = ArchiveMirror(args.task)
    judged: dict[str, list] = {name: [] for name in rewards}
    for path in paths:
        for episode in load_episodes(Path(path))[: args.episodes]:
            for name, triple in mirror.judge(episode, rewards).items():
                judged[name].append(triple)
    print(
        f"{args.task}: {len(paths)} archive(s); largest observation mismatch {mirror.error:.3g} "
        f"({'within' if mirror.matched else 'NOT within'} the product's tolerance {MATCH_TOLERANCE}: "
        f"{'judged' if mirror.matched else 'the product would not judge it'})"
    )
    for name, episodes in judged.items():
        if not episodes:
            print(f"{name:40} not judged")
            continue
        gains = np.array(episode_gains(episodes))
        share = float(np.mean(gains > MIN_GAIN))
        print(
            f"{name:40} n={len(gains):3} max={gains.max():8.3f} median={np.median(gains):8.3f} "
            f"share={share:.2f} {'FLAGGED' if share >= MIN_SHARE else ''}"
        )


if __name__ == "__main__":
    main()
