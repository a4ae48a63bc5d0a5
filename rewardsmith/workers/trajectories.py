"""Archived trajectories: the final evaluation's episodes as plain arrays, labelled with their fitness, and their
replay as the very `State`s a reward sees in training.

The evaluation worker writes `trajectories.npz` beside `eval_episodes.jsonl` (`np.savez_compressed`, no pickles):

    obs (S, obs_dim), qpos (S, nq), qvel (S, nv)  float64, each State's arrays exactly as the reward saw them
    time (S,)                                     float64, each State's `time` (MuJoCo's own running sum)
    obs_dtype ()                                  the env's raw observation dtype (States are built from it)
    part.<name> (S, k)                            float64, a dict observation's parts (goal-conditioned envs)
    mocap_pos (S, 3m), mocap_quat (S, 4m)         float64, mocap bodies (they move bodies qpos does not)
    model.<field> (E, n)                          float64, per episode, model poses an env may randomise at reset
                                                  (`MODEL_FIELDS`: Adroit moves its door, Meta-World its objects)
    contact_count (S,), contact_geom (C, 2),      the contacts each State reported: per state how many, then
    contact_force (C,), contact_pos (C, 3)        their geom ids, normal forces and positions, back to back
    action (S - E, act_dim)                       float64, the actions between them, as the reward got them
    steps (E,)                                    int64, transitions per episode (an episode has steps + 1 states)
    fitness (E,)                                  float64, the trusted fitness of each whole episode

Episodes are cut at `MAX_STEPS` transitions. The screen and the replay (`rewardsmith.workers.replay`) run later
candidates' rewards on these states through `replay.Replayer`, which rebuilds each State the way training takes it (the
same constructor over an MjData holding the recorded qpos, qvel, time and mocap, on a model with the episode's
recorded poses; the same lazy, then frozen,
derived arrays; the recorded contacts; the `state` of step t+1 is the `next_state` of step t), so a reward cannot
tell a replay from training by its values, dtypes or flags. What still differs: a training job with several envs
interleaves their steps (a replay plays one episode at a time), and a replay has no warm-up step.
Archives written before this layout (float32, no time) stay readable; they replay as before (`State.from_arrays`).
"""

from __future__ import annotations

import io
import re
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from rewardsmith.errors import RewardsmithError
from rewardsmith.files import write_bytes_atomic
from rewardsmith.reward.state import Contact, State

MAX_STEPS = 1000
MAX_FILE_BYTES = 64 << 20
MAX_UNPACKED_BYTES = 512 << 20
KEYS = ("obs", "qpos", "qvel", "action", "steps", "fitness")
PART = re.compile(r"part\.([A-Za-z_][A-Za-z0-9_]{0,39})")
MAX_PARTS = 16
OBS_DTYPES = ("float64", "float32", "float16")
CONTACT_KEYS = ("contact_count", "contact_geom", "contact_force", "contact_pos")
MODEL_FIELDS = ("body_pos", "body_quat", "site_pos", "site_quat")
"""Model arrays recorded per episode: envs that randomise a task at reset move bodies and sites in the model."""


@dataclass
class Contacts:
    """The contacts of an episode's states: `count[s]` at state s; geom ids, normal forces and positions of all
    of them back to back."""

    count: np.ndarray
    geom: np.ndarray
    force: np.ndarray
    pos: np.ndarray
    starts: np.ndarray = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.starts = np.concatenate(([0], np.cumsum(self.count)))

    def at(self, s: int, schema) -> tuple[Contact, ...]:
        """State s's contacts, as `State.contacts()` reported them live."""
        start, end = int(self.starts[s]), int(self.starts[s + 1])
        return tuple(
            Contact(
                schema.geom_names[g1],
                schema.geom_names[g2],
                schema.body_names[schema.geom_body[g1]],
                schema.body_names[schema.geom_body[g2]],
                force,
                (pos[0], pos[1], pos[2]),
            )
            for (g1, g2), force, pos in zip(
                self.geom[start:end].tolist(), self.force[start:end].tolist(), self.pos[start:end].tolist()
            )
        )


@dataclass
class Episode:
    """One recorded episode: `steps + 1` states (obs, qpos, qvel, ...), `steps` actions, and its fitness. `time`
    is None for an archive of the old float32 layout."""

    obs: np.ndarray
    qpos: np.ndarray
    qvel: np.ndarray
    action: np.ndarray
    fitness: float
    time: np.ndarray | None = None
    obs_dtype: str = "float64"
    parts: dict[str, np.ndarray] = field(default_factory=dict)
    mocap_pos: np.ndarray | None = None
    mocap_quat: np.ndarray | None = None
    contacts: Contacts | None = None
    model: dict[str, np.ndarray] = field(default_factory=dict)

    @property
    def steps(self) -> int:
        return len(self.action)


class TrajectoryRecorder:
    """Collects episodes step by step during an evaluation (`start`, `step`..., `finish`), then `save`s them.
    `env`: the evaluation's `ApplyReward` env (its raw observation dtype, model and mocap bodies)."""

    def __init__(self, env, max_steps: int = MAX_STEPS) -> None:
        self.max_steps = max_steps
        self.episodes: list[Episode] = []
        space = getattr(env.env, "observation_space", None)
        dtype = str(getattr(space, "dtype", None) or "float64")
        self.obs_dtype = dtype if dtype in OBS_DTYPES else "float64"
        self.schema = env.schema
        base = env.unwrapped
        self.data = getattr(base, "data", None) if self.schema is not None else None
        self.mocap = self.data is not None and int(getattr(base.model, "nmocap", 0)) > 0
        self.model = base.model if self.data is not None else None
        self._poses: dict[str, np.ndarray] = {}
        self._rows: list[dict[str, Any]] = []
        self._actions: list[np.ndarray] = []

    def start(self, state) -> None:
        """Begin an episode at its first state (the env's live `State`, before the env steps again)."""
        self._rows, self._actions = [self._row(state)], []
        model = self.model
        self._poses = (
            {name: np.array(getattr(model, name), dtype=np.float64).reshape(-1) for name in MODEL_FIELDS}
            if model is not None
            else {}
        )

    def step(self, action: np.ndarray, state) -> None:
        """Record one transition: the action taken and the state it led to (ignored past `max_steps`)."""
        if len(self._actions) < self.max_steps:
            self._actions.append(np.array(action, dtype=np.float64).reshape(-1))  # as ApplyReward hands it on
            self._rows.append(self._row(state))

    def _row(self, state: State) -> dict[str, Any]:
        row: dict[str, Any] = {"obs": state.obs, "qpos": state.qpos, "qvel": state.qvel, "time": state.time}
        row.update({f"part.{name}": part for name, part in state.parts.items()})
        data = self.data
        if self.mocap and data is not None:
            row["mocap_pos"], row["mocap_quat"] = data.mocap_pos.flatten(), data.mocap_quat.flatten()  # copies
        if self.schema is not None:
            row["contacts"] = [
                (self.schema.geoms[c.geom1], self.schema.geoms[c.geom2], c.force, c.pos) for c in state.contacts()
            ]
        return row

    def finish(self, fitness: float) -> None:
        """Close the episode with its fitness."""
        rows = self._rows
        column = {key: np.array([row[key] for row in rows], dtype=np.float64) for key in rows[0] if key != "contacts"}
        action = np.stack(self._actions) if self._actions else np.zeros((0, 0))
        contacts = None
        if "contacts" in rows[0]:
            flat = [c for row in rows for c in row["contacts"]]
            contacts = Contacts(
                np.array([len(row["contacts"]) for row in rows], dtype=np.int64),
                np.array([(c[0], c[1]) for c in flat], dtype=np.int64).reshape(-1, 2),
                np.array([c[2] for c in flat], dtype=np.float64),
                np.array([c[3] for c in flat], dtype=np.float64).reshape(-1, 3),
            )
        parts = {key[5:]: value for key, value in column.items() if key.startswith("part.")}
        self.episodes.append(
            Episode(
                column["obs"],
                column["qpos"],
                column["qvel"],
                action,
                float(fitness),
                time=column["time"],
                obs_dtype=self.obs_dtype,
                parts=parts,
                mocap_pos=column.get("mocap_pos"),
                mocap_quat=column.get("mocap_quat"),
                contacts=contacts,
                model=self._poses,
            )
        )

    def save(self, path: Path) -> None:
        """Write every finished episode to `path` (atomically)."""
        save_episodes(path, self.episodes)


def save_episodes(path: Path, episodes: list[Episode], *, compressed: bool = True) -> None:
    """Write episodes in the `trajectories.npz` layout (uncompressed for a short-lived copy). Episodes of the old
    layout (no `time`) are written in it."""
    arrays: dict[str, Any] = {}
    actions = [e.action for e in episodes if e.steps]
    arrays["action"] = np.concatenate(actions) if actions else np.zeros((0, 0))
    arrays["steps"] = np.asarray([e.steps for e in episodes], dtype=np.int64)
    arrays["fitness"] = np.asarray([e.fitness for e in episodes], dtype=np.float64)
    old = any(e.time is None for e in episodes)
    for key in ("obs", "qpos", "qvel"):
        arrays[key] = np.concatenate([getattr(e, key) for e in episodes])
    if old:
        arrays = {k: v.astype(np.float32) if k in ("obs", "qpos", "qvel", "action") else v for k, v in arrays.items()}
    elif episodes:
        first = episodes[0]
        arrays["time"] = np.concatenate([e.time for e in episodes if e.time is not None])
        arrays["obs_dtype"] = np.array(first.obs_dtype)
        for name in first.parts:
            arrays[f"part.{name}"] = np.concatenate([e.parts[name] for e in episodes])
        for key in ("mocap_pos", "mocap_quat"):
            if getattr(first, key) is not None:
                arrays[key] = np.concatenate([getattr(e, key) for e in episodes])
        for name in first.model:
            arrays[f"model.{name}"] = np.stack([e.model[name] for e in episodes])
        if first.contacts is not None:
            for key, attr in zip(CONTACT_KEYS, ("count", "geom", "force", "pos")):
                arrays[key] = np.concatenate([getattr(e.contacts, attr) for e in episodes if e.contacts is not None])
    buffer = io.BytesIO()
    (np.savez_compressed if compressed else np.savez)(buffer, **arrays)
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
            arrays = {key: np.asarray(data[key]) for key in data.files if key in KEYS or _optional(key)}
            missing = [key for key in KEYS if key not in arrays]
    except (OSError, ValueError, KeyError, zipfile.BadZipFile) as e:
        raise RewardsmithError(f"{path}: not a readable trajectories file ({e})") from e
    if missing:
        raise RewardsmithError(f"{path}: not a readable trajectories file (no {', '.join(missing)})")
    episodes = _split(arrays)
    if episodes is None:
        raise RewardsmithError(f"{path}: inconsistent trajectory arrays")
    return episodes


def _optional(key: str) -> bool:
    optional = ("time", "obs_dtype", "mocap_pos", "mocap_quat", *CONTACT_KEYS, *(f"model.{f}" for f in MODEL_FIELDS))
    return key in optional or PART.fullmatch(key) is not None


def _split(arrays: dict[str, np.ndarray]) -> list[Episode] | None:
    """The archive's arrays cut into episodes, or None when their shapes or values do not fit together."""
    try:
        steps, fitness = arrays["steps"].astype(np.int64), arrays["fitness"].astype(np.float64)
        states = int((steps + 1).sum())
        per_state = {k: arrays[k].astype(np.float64) for k in ("obs", "qpos", "qvel", "mocap_pos", "mocap_quat")
                     if k in arrays}  # fmt: skip
        per_state.update({k: arrays[k].astype(np.float64) for k in arrays if PART.fullmatch(k)})
        action = arrays["action"].astype(np.float64)
        time = arrays["time"].astype(np.float64) if "time" in arrays else None
        model = {f: arrays[f"model.{f}"].astype(np.float64) for f in MODEL_FIELDS if f"model.{f}" in arrays}
        obs_dtype = str(arrays["obs_dtype"]) if "obs_dtype" in arrays else "float64"
    except (ValueError, TypeError):
        return None
    if (
        steps.ndim != 1
        or fitness.shape != steps.shape
        or (steps < 0).any()
        or not np.isfinite(fitness).all()
        or any(a.ndim != 2 or len(a) != states for a in per_state.values())
        or (steps.sum() and len(action) != steps.sum())
        or (time is not None and time.shape != (states,))
        or obs_dtype not in OBS_DTYPES
        or sum(1 for k in per_state if k.startswith("part.")) > MAX_PARTS
        or any(a.ndim != 2 or len(a) != len(steps) for a in model.values())
    ):
        return None
    contacts = _contacts(arrays, states)
    if contacts is False:
        return None
    episodes, s, a, c = [], 0, 0, 0
    for e, (n, f) in enumerate(zip(steps.tolist(), fitness.tolist())):
        cut = {k: v[s : s + n + 1] for k, v in per_state.items()}
        mine = None
        if isinstance(contacts, Contacts):
            count = contacts.count[s : s + n + 1]
            used = int(count.sum())
            mine = Contacts(
                count, contacts.geom[c : c + used], contacts.force[c : c + used], contacts.pos[c : c + used]
            )
            c += used
        episodes.append(
            Episode(
                cut["obs"],
                cut["qpos"],
                cut["qvel"],
                action[a : a + n],
                f,
                time=None if time is None else time[s : s + n + 1],
                obs_dtype=obs_dtype,
                parts={k[5:]: v for k, v in cut.items() if k.startswith("part.")},
                mocap_pos=cut.get("mocap_pos"),
                mocap_quat=cut.get("mocap_quat"),
                contacts=mine,
                model={name: rows[e] for name, rows in model.items()},
            )
        )
        s, a = s + n + 1, a + n
    return episodes


def _contacts(arrays: dict[str, np.ndarray], states: int) -> Contacts | None | bool:
    """The archive's contacts; None when it has none, False when they are malformed."""
    if not any(key in arrays for key in CONTACT_KEYS):
        return None
    if not all(key in arrays for key in CONTACT_KEYS):
        return False
    try:
        count, geom = arrays["contact_count"].astype(np.int64), arrays["contact_geom"].astype(np.int64)
        force, pos = arrays["contact_force"].astype(np.float64), arrays["contact_pos"].astype(np.float64)
    except (ValueError, TypeError):
        return False
    total = int(count.sum()) if count.ndim == 1 else -1
    shapes_ok = count.shape == (states,) and geom.shape == (total, 2) and force.shape == (total,)
    if not shapes_ok or pos.shape != (total, 3) or (count < 0).any() or (geom < 0).any():
        return False
    return Contacts(count, geom, force, pos)


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
