"""Sandboxed replays of a candidate reward over recorded episodes: the `replay` worker mode, its parent side,
and the replay machinery the `screen` mode (`rewardsmith.workers.screen`) shares.

Both modes read `trajectories.npz` archives (`rewardsmith.workers.trajectories`) and make the task's env before
lock-down, then lock down, load the candidate reward and run it over every transition, on `State`s rebuilt as
training builds them (`Replayer`: a reward cannot tell the replay from training by the states).

- `screen` sums it over the episodes of several archives and writes the returns to `screen.json`; the parent
  (`rewardsmith.stages.screen`) judges them against the fitness labels it read itself.
- `replay` runs it over chosen episodes of one or more archives (a trained candidate's own evaluation
  episodes, then other candidates' of the same run) and writes `replay.json`: per episode the return, the
  per-component sums and, at the transitions the parent asked for, each component's value. `replay_reward` is
  its parent side: it runs the job in a temporary folder and returns only what passes `parse_replay` (labels,
  indices, types, finite numbers, lengths), else nothing.

It is a mode of its own rather than an option of `screen`: chosen episodes instead of whole archives, per-step
values instead of one sum per episode, and a different output file, so neither parent has to tell the two apart.
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from rewardsmith.errors import RewardFileError, RewardsmithError
from rewardsmith.files import MAX_COMPONENTS, MAX_NAME_CHARS, remove_tree, write_json_atomic
from rewardsmith.reward.contract import validate_result
from rewardsmith.reward.state import State, control_period, schema_for
from rewardsmith.run_folder.names import REPLAY_FILE
from rewardsmith.run_folder.records import SUMMARY_FILE
from rewardsmith.task import TaskSpec, make_env
from rewardsmith.workers.executor import Executor
from rewardsmith.workers.job import WorkerJob
from rewardsmith.workers.trajectories import Episode, load_episodes, unlabelled_copies

NAME = re.compile(rf"[A-Za-z_][A-Za-z0-9_.\-]{{0,{MAX_NAME_CHARS - 1}}}")
"""A component name the parent accepts from a replay (it reaches the designer's prompt)."""
REPLAY_TIMEOUT_S = 60.0
OWN = "own"
"""The label of the candidate's own evaluation archive in a replay (other archives carry candidate ids)."""


def run_replay_job(job: WorkerJob) -> dict[str, Any]:
    """Read the archives in `options["trajectories"]` ({label: path}), sandbox, load the reward and run it over
    the episodes `options["episodes"]` picks ({label: [episode index]}; all of an archive it does not name); write
    replay.json with each episode's label, index, return and component sums, and the components at the
    transitions `options["steps"]` asks for ({label: {episode index: [transition index]}}; transition t goes
    from state t to state t + 1)."""
    from rewardsmith.workers.main import enter_sandbox, load_job_reward, read_job_reward

    picked, steps = job.options.get("episodes") or {}, job.options.get("steps") or {}
    replayer = make_replayer(job.task())
    replays = []
    for label, path in job.options["trajectories"].items():
        episodes = load_episodes(Path(path))
        wanted = {int(i): {int(t) for t in ts} for i, ts in (steps.get(label) or {}).items()}
        for i in range(len(episodes)) if picked.get(label) is None else [int(i) for i in picked[label]]:
            replays.append((str(label), i, episodes[i], wanted.get(i, set())))
    source = read_job_reward(job)
    sandbox = enter_sandbox(job)  # before any of the reward's code runs, module body included
    reward_fn = load_job_reward(job, source)
    rows = []
    for label, i, episode, wanted_steps in replays:
        total, trace = 0.0, []
        sums: dict[str, float] = {}
        where = f"recorded evaluation episode {i}" if label == OWN else f"episode {i} of candidate {label}"
        for t, transition in enumerate(replayer.transitions(episode)):
            value, parts = reward_step(reward_fn, transition, t, where)
            total += value
            for name, part in parts.items():
                sums[name] = sums.get(name, 0.0) + part
            if t in wanted_steps:
                trace.append({"step": t, "total": value, "components": parts})
        row = {"label": label, "episode": i, "steps": episode.steps, "return": total, "components": sums}
        rows.append({**row, "trace": trace})
    report = {"episodes": rows, "sandbox": sandbox}
    write_json_atomic(job.out_dir / REPLAY_FILE, report)
    write_json_atomic(job.out_dir / SUMMARY_FILE, {"status": "replayed", "episodes": len(rows)})
    return report


class Replayer:
    """Rebuilds archived episodes as the `State`s training hands a reward, from the task's env (made before
    lock-down: its model, control period and a scratch MjData)."""

    def __init__(self, env) -> None:
        self.schema = schema_for(env)
        self.dt = control_period(env)[0]
        model = self.model = getattr(env.unwrapped, "model", None)
        if self.schema is not None:
            import mujoco

            self.data = mujoco.MjData(model)
        else:
            self.data = None
        self.ngeom = int(getattr(model, "ngeom", 0)) if self.schema is not None else 0
        self.action_shape = tuple(getattr(env.action_space, "shape", None) or ())

    def transitions(self, episode: Episode) -> Iterator[tuple[State, np.ndarray, State]]:
        """(state, action, next_state) of every step, built one state ahead, as training does: a state's derived
        arrays are read from the MjData until the next state is set up, then frozen (`State.freeze`)."""
        if episode.time is None:  # the old float32 layout: no time, contacts or parts were recorded
            states = [
                State.from_arrays(episode.obs[t], episode.qpos[t], episode.qvel[t], self.dt, self.schema, t * self.dt)
                for t in range(episode.steps + 1)
            ]
            for t in range(episode.steps):
                yield states[t], self._action(episode, t), states[t + 1]
            return
        contacts = episode.contacts
        if contacts is not None and int(contacts.geom.max(initial=-1)) >= self.ngeom:
            raise RewardsmithError("the archive's contacts name geoms this task's model does not have")
        if self.data is not None:
            for name, values in episode.model.items():  # the poses the env gave this episode's model at reset
                target = getattr(self.model, name)
                if values.size != target.size:
                    raise RewardsmithError(f"the archive's model.{name} does not fit this task's model")
                target[:] = values.reshape(target.shape)
        state = self._state(episode, 0)
        for t in range(episode.steps):
            state.freeze()  # as `ApplyReward.step` does before the simulator moves on
            next_state = self._state(episode, t + 1)
            yield state, self._action(episode, t), next_state
            state = next_state

    def _action(self, episode: Episode, t: int) -> np.ndarray:
        """A read-only float64 copy in the action space's shape, as `ApplyReward.step` hands it to a reward."""
        row = episode.action[t]
        action = np.array(row.reshape(self.action_shape) if row.size == int(np.prod(self.action_shape)) else row)
        action.flags.writeable = False
        return action

    def _state(self, episode: Episode, s: int) -> State:
        data = self.data
        if data is not None:
            data.qpos[:], data.qvel[:], data.time = episode.qpos[s], episode.qvel[s], float(episode.time[s])  # type: ignore[index]
            if episode.mocap_pos is not None and episode.mocap_quat is not None:
                data.mocap_pos[:] = episode.mocap_pos[s].reshape(data.mocap_pos.shape)
                data.mocap_quat[:] = episode.mocap_quat[s].reshape(data.mocap_quat.shape)
        if episode.parts:
            obs: Any = {name: part[s] for name, part in episode.parts.items()}
        else:
            obs = episode.obs[s].astype(episode.obs_dtype)  # the raw dtype: States take the same branch as live
        state = State(obs, self.dt, self.schema, data)
        if episode.contacts is not None and self.schema is not None:
            state._contacts = episode.contacts.at(s, self.schema)  # what the live state reported at this step
        return state


def make_replayer(spec: TaskSpec) -> Replayer:
    """A `Replayer` for the task's env (made now, before lock-down)."""
    env = make_env(spec)
    try:
        return Replayer(env)
    finally:
        env.close()


def reward_step(
    reward_fn, transition: tuple[State, np.ndarray, State], t: int, where: str
) -> tuple[float, dict[str, float]]:
    """The reward's (total, components) on transition t; an exception or contract breach names the step."""
    try:
        return validate_result(reward_fn(*transition))
    except Exception as e:  # noqa: BLE001 - untrusted code; reported as the candidate's fault
        what = str(e) if isinstance(e, RewardFileError) else f"{type(e).__name__}: {e}"
        raise RewardFileError(f"{what} (on {where}, step {t})") from None


def episode_return(reward_fn, transitions: Iterator[tuple[State, np.ndarray, State]], where: str) -> float:
    """The reward summed over one episode's transitions; an exception or contract breach names its step."""
    return sum((reward_step(reward_fn, transition, t, where)[0] for t, transition in enumerate(transitions)), 0.0)


# -- parent side of `replay` ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class ReplayArchive:
    """One archive a replay reads: its label (`OWN` for the candidate's own evaluation episodes, else another
    candidate's id), its episodes as the parent loaded them (the worker gets label-free copies of them), which of
    them to replay (None: all), and {episode index: transition indices} whose component values to return."""

    label: str
    episodes: list[Episode]
    picked: tuple[int, ...] | None = None
    steps: dict[int, list[int]] = field(default_factory=dict)

    def indices(self) -> list[int]:
        """The indices of the episodes replayed, in order."""
        return list(range(len(self.episodes))) if self.picked is None else list(self.picked)


def replay_reward(
    spec: TaskSpec,
    reward_path: Path,
    archives: list[ReplayArchive],
    *,
    executor: Executor,
    settings_from: Path | None = None,
    timeout_s: float = REPLAY_TIMEOUT_S,
) -> tuple[list[list[dict[str, Any]]] | None, str]:
    """Replay a reward over the picked episodes of `archives` in one sandboxed worker (a job of `executor`, in its
    quick lane) under a temporary folder;
    returns (per archive, per picked episode: `parse_replay`'s row, "") or (None, why there are none).
    `settings_from`: a folder whose `job.json` (the candidate's training job, written by the parent) gives the
    AST gate and sandbox settings; the defaults otherwise. Never raises for the worker's faults."""
    from rewardsmith.workers.run import read_json_file

    ast_gate, sandbox = job_settings(settings_from)
    if spec.source is None:
        return None, "the task has no spec file for the worker to read"
    work = Path(tempfile.mkdtemp(prefix="rewardsmith-replay-"))
    inputs = Path(tempfile.mkdtemp(prefix="rewardsmith-replay-inputs-"))
    try:
        files = unlabelled_copies({a.label: a.episodes for a in archives}, inputs)
        job = WorkerJob(
            mode="replay",
            task_path=spec.source,
            reward_path=Path(reward_path).resolve(),
            out_dir=work,
            ast_gate=ast_gate,
            sandbox=sandbox,
            options={
                "trajectories": files,  # without the fitness labels: the parent keeps them
                "episodes": {a.label: list(a.picked) for a in archives if a.picked is not None},
                "steps": {a.label: {str(i): sorted(set(ts)) for i, ts in a.steps.items()} for a in archives},
                "timeout_s": timeout_s,
                "stall_timeout_s": timeout_s,
            },
        )
        result = executor.submit(job).result()
        if not result.ok:
            verdict = "rejected the reward" if result.status == "rejected" else "failed"
            return None, f"the replay worker {verdict}: {result.error or 'no reason given'}"[:500]
        parsed = parse_replay(read_json_file(work / REPLAY_FILE), archives)
        if parsed is None:
            return None, f"the replay worker's {REPLAY_FILE} was missing or malformed"
        return parsed, ""
    finally:
        remove_tree(work)
        remove_tree(inputs)


def job_settings(folder: Path | None) -> tuple[bool, Any]:
    """(ast_gate, sandbox settings) of the job in `folder/job.json` (the parent writes it and restores it if a
    worker touched it); the defaults (gate on, default sandbox) when there is none or it does not parse."""
    from rewardsmith.run_folder.names import JOB_FILE
    from rewardsmith.sandbox.lockdown import SandboxSettings
    from rewardsmith.workers.run import read_json_file

    try:
        job = WorkerJob.model_validate(read_json_file(Path(folder) / JOB_FILE)) if folder else None
    except ValueError:
        job = None
    return (job.ast_gate, job.sandbox) if job else (True, SandboxSettings())


def parse_replay(data: Any, archives: list[ReplayArchive]) -> list[list[dict[str, Any]]] | None:
    """A replay worker's report, checked against what the parent asked for: one row per picked episode, in
    order, with its label, index and step count, a finite return, at most MAX_COMPONENTS well-named finite
    component sums, and component values only at requested transitions. Returns, per archive and picked
    episode, {"return", "components", "trace": {t: {name: value}}}, or None when anything is off (the worker
    ran the candidate's code: nothing in it is taken on trust)."""
    rows = data.get("episodes") if isinstance(data, dict) else None
    expected = [(a, i) for a in archives for i in a.indices()]
    if not isinstance(rows, list) or len(rows) != len(expected):
        return None
    parsed: dict[str, list[dict[str, Any]]] = {a.label: [] for a in archives}
    for row, (archive, i) in zip(rows, expected):
        if (
            not isinstance(row, dict)
            or row.get("label") != archive.label
            or row.get("episode") != i
            or row.get("steps") != archive.episodes[i].steps
        ):
            return None
        total, sums, trace = _finite(row.get("return")), _components(row.get("components")), row.get("trace")
        allowed = set(archive.steps.get(i, ()))
        if total is None or sums is None or not isinstance(trace, list) or len(trace) > len(allowed):
            return None
        at: dict[int, dict[str, float]] = {}
        for point in trace:
            step = point.get("step") if isinstance(point, dict) else None
            parts = _components(point.get("components")) if isinstance(point, dict) else None
            if type(step) is not int or step not in allowed or step in at or parts is None:
                return None
            at[step] = parts
        parsed[archive.label].append({"return": total, "components": sums, "trace": at})
    return [parsed[a.label] for a in archives]


def _finite(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not np.isfinite(value):
        return None
    return float(value)


def _components(value: Any) -> dict[str, float] | None:
    if not isinstance(value, dict) or len(value) > MAX_COMPONENTS:
        return None
    parts = {name: _finite(v) for name, v in value.items()}
    if not all(isinstance(name, str) and NAME.fullmatch(name) and v is not None for name, v in parts.items()):
        return None
    return {name: v for name, v in parts.items() if v is not None}
