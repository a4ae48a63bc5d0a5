"""`rewardsmith evaluate`: measure a saved policy again with the task's trusted scorer (and record a video).

The target is a run folder (its final retraining's first seed, else its best candidate, or `--candidate ID`), a
training folder (`train --out DIR`, a candidate's folder) or a `policy.safetensors` file. The weights are copied
into a fresh temporary folder and measured there by the same sandboxed evaluation worker the search uses
(`rewardsmith.search.training.evaluate_policy`: it never loads reward code, parses the weights strictly, runs
fresh seeds to the env's full time limit); the run folder itself is never written to.

    target = find_policy(Path("runs/hopper-hop/<stamp>"))
    evaluation = evaluate_target(target, episodes=10)
"""

from __future__ import annotations

import re
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from rewardsmith.errors import RunFolderError
from rewardsmith.run_folder.index import require_run_dir
from rewardsmith.run_folder.names import MODEL_FILE, candidate_dir
from rewardsmith.run_folder.records import RUN_FILE, TASK_FILE, WEIGHTS_FILE, Evaluation
from rewardsmith.task import TaskSpec, load_task, read_task


@dataclass
class PolicyTarget:
    """A policy to evaluate: the folder holding its weights, the task, and what it is (for the header)."""

    folder: Path
    spec: TaskSpec
    label: str


def _run_of(folder: Path) -> Path | None:
    """The run folder `folder` is in (itself or a parent with run.json), if any."""
    for candidate in (folder, *folder.parents):
        if (candidate / RUN_FILE).is_file():
            return candidate
    return None


def find_policy(target: Path, *, candidate: str | None = None, task: str | None = None) -> PolicyTarget:
    """Resolve TARGET (run folder, training folder or weights file) to a `PolicyTarget`; RunFolderError says what
    is missing."""
    target = Path(target)
    if target.is_file():
        if target.name != WEIGHTS_FILE:
            raise RunFolderError(f"{target}: not a policy (expected a folder or a {WEIGHTS_FILE} file)")
        target = target.parent
    require_run_dir(target)  # the shared wording for a missing folder
    run = _run_of(target.resolve())
    if candidate is not None:
        if run is None:
            raise RunFolderError(f"{target}: --candidate needs a run folder")
        try:
            folder = run / candidate_dir(candidate)
        except ValueError as e:
            raise RunFolderError(f"--candidate: {e}") from None
        label = f"candidate {candidate} of run {run.name}"
    elif (target / RUN_FILE).is_file():
        folder, label = _run_policy(target)
    else:
        folder, label = target, str(target)
    if not (folder / WEIGHTS_FILE).is_file():
        raise RunFolderError(f"{folder}: no {WEIGHTS_FILE} (no trained policy here)")
    if task is not None:
        spec = load_task(task)
    elif run is not None and (run / TASK_FILE).is_file():
        spec = read_task(run / TASK_FILE)
    else:
        raise RunFolderError(f"{target}: not inside a run folder, so pass --task TASK to say which task it plays")
    return PolicyTarget(folder=folder, spec=spec, label=label)


def _run_policy(run: Path) -> tuple[Path, str]:
    """A run's policy to show: the final retraining's first seed with weights, else the best candidate."""
    seeds = sorted((run / "final").glob("seed_*"), key=lambda p: int(p.name[5:]) if p.name[5:].isdigit() else 0)
    for seed in seeds:
        if (seed / WEIGHTS_FILE).is_file():
            return seed, f"final retraining, {seed.name.replace('_', ' ')}, of run {run.name}"
    best = run / "best"
    record = best / "candidate.json"
    if record.is_file():
        import json

        cid = str(json.loads(record.read_text(encoding="utf-8")).get("id", ""))
        if re.fullmatch(r"\d+\.\d+", cid) and (folder := run / candidate_dir(cid)).is_dir():
            return folder, f"best candidate {cid} of run {run.name}"
    raise RunFolderError(f"{run}: no trained policy yet (no final retraining and no best candidate)")


def evaluate_target(
    target: PolicyTarget, *, episodes: int, video: Path | None = None
) -> tuple[Evaluation, Path | str | None]:
    """Measure the policy on `episodes` fresh seeds in a temporary copy; with `video`, also render one whole
    episode and move the file there. Returns the evaluation and the video: its path, or one line saying why there
    is none (None without `video`)."""
    from rewardsmith.errors import RewardsmithError
    from rewardsmith.search.training import evaluate_policy
    from rewardsmith.stages.video import VideoError, record_video
    from rewardsmith.workers.executor import LocalExecutor

    if target.spec.source is None:
        raise RewardsmithError(f"task '{target.spec.name}' has no spec file, which the evaluation worker needs")
    work = Path(tempfile.mkdtemp(prefix="rewardsmith-evaluate-"))
    executor = LocalExecutor(1)
    try:
        shutil.copyfile(target.folder / WEIGHTS_FILE, work / WEIGHTS_FILE)
        result, evaluation = evaluate_policy(target.spec.source, work, episodes=episodes, executor=executor)
        if evaluation is None:
            raise RewardsmithError(f"evaluation failed: {result.error}")
        if video is None:
            return evaluation, None
        if not (target.folder / MODEL_FILE).is_file():
            return evaluation, f"no video: {target.folder} holds no {MODEL_FILE} beside the weights"
        shutil.copyfile(target.folder / MODEL_FILE, work / MODEL_FILE)
        try:
            recorded = record_video(target.spec, work, executor=executor, seed=evaluation.seeds[0])
        except VideoError as e:
            return evaluation, e.reason  # its log is in the temporary folder, gone after this
        video.parent.mkdir(parents=True, exist_ok=True)
        saved = video.with_suffix(recorded.suffix)
        shutil.move(str(recorded), saved)
        return evaluation, saved
    finally:
        executor.shutdown()
        shutil.rmtree(work, ignore_errors=True)
