"""Archived trajectories: the final evaluation's episodes as plain arrays, labelled with their fitness.

The train worker writes `trajectories.npz` beside `eval_episodes.jsonl` (`np.savez_compressed`, no pickles):

    obs (S, obs_dim), qpos (S, nq), qvel (S, nv)  float32, the states of all episodes back to back
    action (S - E, act_dim)                        float32, the actions between them
    steps (E,)                                     int64, transitions per episode (an episode has steps + 1 states)
    fitness (E,)                                   float64, the trusted fitness of each whole episode

Episodes are cut at `MAX_STEPS` transitions. The screen (`rewardsmith.stages.screen`) replays later candidates'
rewards on these states to see whether they prefer the episodes that scored higher.
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from rewardsmith.errors import RewardsmithError
from rewardsmith.files import write_bytes_atomic

MAX_STEPS = 1000
MAX_FILE_BYTES = 64 << 20
MAX_UNPACKED_BYTES = 512 << 20
KEYS = ("obs", "qpos", "qvel", "action", "steps", "fitness")


@dataclass
class Episode:
    """One recorded episode: `steps + 1` states (obs, qpos, qvel), `steps` actions, and its fitness."""

    obs: np.ndarray
    qpos: np.ndarray
    qvel: np.ndarray
    action: np.ndarray
    fitness: float

    @property
    def steps(self) -> int:
        return len(self.action)


class TrajectoryRecorder:
    """Collects episodes step by step during an evaluation (`start`, `step`..., `finish`), then `save`s them."""

    def __init__(self, max_steps: int = MAX_STEPS) -> None:
        self.max_steps = max_steps
        self.episodes: list[Episode] = []
        self._states: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        self._actions: list[np.ndarray] = []

    def start(self, state) -> None:
        """Begin an episode at its first state (a `rewardsmith.reward.state.State`)."""
        self._states, self._actions = [_arrays(state)], []

    def step(self, action: np.ndarray, state) -> None:
        """Record one transition: the action taken and the state it led to (ignored past `max_steps`)."""
        if len(self._actions) < self.max_steps:
            self._actions.append(np.asarray(action, dtype=np.float32).reshape(-1))
            self._states.append(_arrays(state))

    def finish(self, fitness: float) -> None:
        """Close the episode with its fitness."""
        obs, qpos, qvel = (np.stack(column) for column in zip(*self._states))
        action = np.stack(self._actions) if self._actions else np.zeros((0, 0), dtype=np.float32)
        self.episodes.append(Episode(obs, qpos, qvel, action, float(fitness)))

    def save(self, path: Path) -> None:
        """Write every finished episode to `path` (atomically)."""
        save_episodes(path, self.episodes)


def _arrays(state) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    obs, qpos, qvel = (np.asarray(a, dtype=np.float32).reshape(-1) for a in (state.obs, state.qpos, state.qvel))
    return obs, qpos, qvel


def save_episodes(path: Path, episodes: list[Episode], *, compressed: bool = True) -> None:
    """Write episodes in the `trajectories.npz` layout (uncompressed for a short-lived copy)."""
    buffer = io.BytesIO()
    actions = [e.action for e in episodes if e.steps]
    (np.savez_compressed if compressed else np.savez)(
        buffer,
        obs=np.concatenate([e.obs for e in episodes]).astype(np.float32),
        qpos=np.concatenate([e.qpos for e in episodes]).astype(np.float32),
        qvel=np.concatenate([e.qvel for e in episodes]).astype(np.float32),
        action=np.concatenate(actions).astype(np.float32) if actions else np.zeros((0, 0), dtype=np.float32),
        steps=np.asarray([e.steps for e in episodes], dtype=np.int64),
        fitness=np.asarray([e.fitness for e in episodes], dtype=np.float64),
    )
    write_bytes_atomic(path, buffer.getvalue())


def load_episodes(path: Path) -> list[Episode]:
    """Episodes of a `trajectories.npz` (written by a sandboxed worker, so read without pickles, size-capped
    and checked for a consistent layout); raises `RewardsmithError` naming the file otherwise."""
    path = Path(path)
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            raise RewardsmithError(f"{path}: over {MAX_FILE_BYTES >> 20} MiB")
        with zipfile.ZipFile(path) as archive:
            if sum(info.file_size for info in archive.infolist()) > MAX_UNPACKED_BYTES:
                raise RewardsmithError(f"{path}: unpacks to over {MAX_UNPACKED_BYTES >> 20} MiB")
        with np.load(path, allow_pickle=False) as data:
            arrays = {key: np.asarray(data[key]) for key in KEYS}
    except (OSError, ValueError, KeyError, zipfile.BadZipFile) as e:
        raise RewardsmithError(f"{path}: not a readable trajectories file ({e})") from e
    steps, fitness = arrays["steps"].astype(np.int64), arrays["fitness"].astype(np.float64)
    states = int((steps + 1).sum())
    if (
        steps.ndim != 1
        or fitness.shape != steps.shape
        or (steps < 0).any()
        or not np.isfinite(fitness).all()
        or any(arrays[k].ndim != 2 or len(arrays[k]) != states for k in ("obs", "qpos", "qvel"))
        or (steps.sum() and len(arrays["action"]) != steps.sum())
    ):
        raise RewardsmithError(f"{path}: inconsistent trajectory arrays")
    episodes, s, a = [], 0, 0
    for n, f in zip(steps.tolist(), fitness.tolist()):
        episodes.append(
            Episode(
                arrays["obs"][s : s + n + 1],
                arrays["qpos"][s : s + n + 1],
                arrays["qvel"][s : s + n + 1],
                arrays["action"][a : a + n],
                f,
            )
        )
        s, a = s + n + 1, a + n
    return episodes


def unlabelled_copies(archives: Mapping[str, list[Episode]], folder: Path) -> dict[str, str]:
    """{label: path} of copies of the archives with every fitness set to 0, for a worker that runs
    candidate code (the screen's, the replay's): the labels its returns are judged against stay in the parent."""
    folder.mkdir(parents=True, exist_ok=True)
    files = {}
    for n, (label, episodes) in enumerate(archives.items()):
        path = folder / f"{n}.npz"
        save_episodes(path, [replace(e, fitness=0.0) for e in episodes], compressed=False)
        files[label] = str(path.resolve())
    return files
