"""The candidate's reward replayed over the run's evaluation episodes, for the analyzer's step traces and its
reward-hacking check.

What is replayed: the candidate's own `eval/trajectories.npz` (all of it: the step traces show its best and
worst episode), then the archives of the other candidates the parent recorded as trained in `candidate.json`
(`stages.screen.trained_archives`, the archives the screen reads too), newest first, whole episodes only, up to
`MAX_EPISODES` episodes and `MAX_STEPS` transitions in all, so one replay takes seconds. An episode's fitness
comes from its candidate's `eval/evaluation.json` (the trusted evaluation worker's); an episode the archive cut
short is left out, since a replayed return would cover only part of it. Everything runs in one sandboxed
`replay` worker (`workers.replay`); when it fails with other candidates' episodes in it, it is rerun on the
candidate's own alone, and `analysis["replay"]` says so.
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

import numpy as np

from rewardsmith.errors import RewardsmithError
from rewardsmith.run_folder.candidate import CandidateFolder
from rewardsmith.run_folder.folder import RunFolder
from rewardsmith.run_folder.names import REWARD_FILE
from rewardsmith.run_folder.records import (
    CANDIDATE_FILE,
    EVAL_DIR,
    TRAJECTORIES_FILE,
    CandidateRecord,
    read_record,
)
from rewardsmith.stages.reflection import EVALUATION_PAIRS, TRAINING_PAIRS, evaluation_pairs, trace_picks, trace_steps
from rewardsmith.stages.screen import trained_archives
from rewardsmith.task import TaskSpec
from rewardsmith.workers.executor import Executor

MAX_EPISODES = 60
"""Most evaluation episodes in one replay, the candidate's own included."""
MAX_STEPS = 12_000
"""Most transitions in one replay, unless the candidate's own episodes alone have more (each costs ~0.1-0.4 ms:
a MuJoCo state rebuilt from qpos/qvel and a small reward): at least 12 whole 1000-step episodes, the fewest the
hacking check judges being `reflection.HACKING_MIN_EPISODES`."""


def recorded_episodes(cand_dir: Path) -> tuple[Path | None, list, list[str]]:
    """The evaluation worker's `trajectories.npz` of a candidate and its episodes, or ([], why there is no
    step trace)."""
    from rewardsmith.workers.trajectories import load_episodes

    found = (p for p in (cand_dir / EVAL_DIR / TRAJECTORIES_FILE, cand_dir / TRAJECTORIES_FILE) if p.is_file())
    path = next(found, None)
    try:
        return path, load_episodes(path) if path else [], []
    except RewardsmithError as e:
        return None, [], [f"(no step trace: {e})"]


def other_archives(cand_dir: Path, episodes: int, steps: int) -> tuple[list, list[tuple[float, ...]]]:
    """The other trained candidates' archives of the run `cand_dir` belongs to (`iter_<i>/cand_<j>`), newest
    first, as `ReplayArchive`s picking whole episodes within `episodes` and `steps`, and the trusted fitness of
    each picked episode (one tuple per archive). Nothing when `cand_dir` is not in a run folder."""
    from rewardsmith.workers.replay import ReplayArchive
    from rewardsmith.workers.trajectories import MAX_STEPS as CUT
    from rewardsmith.workers.trajectories import load_episodes

    cand_dir = Path(cand_dir).resolve()
    if not (re.fullmatch(r"cand_\d+", cand_dir.name) and re.fullmatch(r"iter_\d+", cand_dir.parent.name)):
        return [], []
    folder = RunFolder(cand_dir.parent.parent)
    archives, labels = [], []
    for cid, path in reversed(trained_archives(folder).items()):
        if episodes <= 0 or path.parent.parent.resolve() == cand_dir:
            continue
        evaluation = CandidateFolder.at(path.parent.parent).evaluation()  # the parent's, with its proof
        try:
            recorded = load_episodes(path)
        except RewardsmithError:
            continue
        if evaluation is None or len(evaluation.fitness) != len(recorded):
            continue  # no trusted label per episode
        lengths = evaluation.lengths if len(evaluation.lengths) == len(recorded) else [None] * len(recorded)
        picked = []
        for i, (episode, score, length) in enumerate(zip(recorded, evaluation.fitness, lengths)):
            cut = episode.steps >= CUT and (length is None or length > episode.steps)
            if cut or not math.isfinite(score) or episode.steps > steps or episodes <= 0:
                continue
            picked.append(i)
            episodes, steps = episodes - 1, steps - episode.steps
        if picked:
            archives.append(ReplayArchive(cid, recorded, tuple(picked)))
            labels.append(tuple(float(evaluation.fitness[i]) for i in picked))
    return archives, labels


def replay_evaluation(
    spec: TaskSpec,
    cand_dir: Path,
    path: Path | None,
    recorded: list,
    episodes: list[dict],
    summary: dict[str, Any],
    analysis: dict,
    executor: Executor,
) -> tuple[dict[int, dict[int, dict[str, float]]], list[tuple[float, float]] | None]:
    """Replay the candidate's reward over its own recorded evaluation episodes and the other trained candidates'
    (see the module docstring) under the training job's gate and sandbox settings, as a job of `executor`; record the outcome as
    `analysis["replay"]`. Returns the traces' component values ({episode: {state index: {name: value}}}, the
    reward of the step into that state) and the (replayed return, trusted fitness) pairs, or ({}, None) when
    the replay failed or could not run (`analysis["replay"]["pairs"]` then names the training worker's)."""
    from rewardsmith.workers.replay import OWN, ReplayArchive, replay_reward

    info: dict[str, Any] = {"status": "skipped", "reason": "", "pairs": TRAINING_PAIRS, "episodes": []}
    info.update(candidates=[], pair_episodes=0)
    analysis["replay"] = info
    reward = cand_dir / REWARD_FILE
    own = []
    if path is not None and recorded:
        picks = [i for _, i in trace_picks(recorded, episodes)]
        wanted = {i: [t - 1 for t in trace_steps(recorded[i]) if t > 0] for i in picks}
        own = [ReplayArchive(OWN, recorded, steps=wanted)]
    used = sum(e.steps for e in recorded) if own else 0
    others, labels = other_archives(cand_dir, MAX_EPISODES - len(recorded), MAX_STEPS - used)
    if not reward.is_file() or not (own or others):
        info["reason"] = "no recorded evaluation episodes" if reward.is_file() else "no reward.py"
        return {}, None
    replayed, why = replay_reward(spec, reward, own + others, executor=executor, settings_from=cand_dir)
    if replayed is None and others and own:
        info["others_failed"] = why  # the reward failed on another candidate's episodes: its own alone
        others, labels = [], []
        replayed, why = replay_reward(spec, reward, own, executor=executor, settings_from=cand_dir)
    if replayed is None:
        info.update(status="failed", reason=why)
        return {}, None
    info.update(status="ok", pairs=EVALUATION_PAIRS)
    pairs, components = [], {}
    if own:
        mine = replayed[0]
        returns = [r["return"] for r in mine]
        info["episodes"] = [
            {"episode": i, "return": r["return"], "components": r["components"]} for i, r in enumerate(mine)
        ]
        if analysis["final"].get("return") is None:
            analysis["final"]["return"] = float(np.mean(returns))
        pairs = evaluation_pairs(returns, recorded, summary, episodes)
        components = {i: {t + 1: parts for t, parts in mine[i]["trace"].items()} for i in own[0].steps}
        if pairs:
            info["candidates"].append({"candidate": _own_id(cand_dir), "episodes": len(pairs)})
    for archive, rows, fitness in zip(others, replayed[len(own) :], labels):
        pairs += [(row["return"], score) for row, score in zip(rows, fitness)]
        info["candidates"].append({"candidate": archive.label, "episodes": len(rows)})
    info["pair_episodes"] = len(pairs)
    return components, pairs


def _own_id(cand_dir: Path) -> str:
    record = read_record(cand_dir / CANDIDATE_FILE, CandidateRecord)
    return record.id if record else "this candidate"
