"""Human and sparse baselines per task, budget and seed, cached so they are trained once.

"human" trains on the env's own reward; "sparse" on the task's success-only reward. Both are measured
by the task's fitness in the evaluation worker (`rewardsmith.search.training`), as candidates are, giving Eureka's human-normalised score (method - sparse) / |human - sparse|.
The cache is keyed by content (`content_key`: the spec file, its scorer module and any custom env
module), so a changed spec or scorer never reuses a stale baseline.
"""

from __future__ import annotations

import hashlib
import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from rewardsmith.errors import RewardsmithError
from rewardsmith.files import write_json_atomic
from rewardsmith.reward.fitness import human_normalized
from rewardsmith.reward.wrappers import RewardSource
from rewardsmith.run_folder.claim import RUNS_DIR
from rewardsmith.run_folder.records import Evaluation
from rewardsmith.search.training import train_and_evaluate
from rewardsmith.task import TaskSpec
from rewardsmith.workers.executor import LocalExecutor
from rewardsmith.workers.run import JobResult, ProgressFn

BASELINE_DIR = RUNS_DIR / "baselines"


def content_key(spec: TaskSpec) -> str:
    """12 hex digits of a hash of what decides a baseline: the spec file, its scorer module and custom env."""
    digest = hashlib.sha256()
    files = [spec.source] if spec.source else []
    for ref in [spec.fitness.scorer, *([spec.env] if ":" in spec.env else [])]:
        files.append(spec.folder / (ref.split(":")[0].replace(".", "/") + ".py"))
    for file in files:
        digest.update(str(Path(file).name).encode())
        digest.update(Path(file).read_bytes() if Path(file).is_file() else b"<missing>")
    if not spec.source:
        digest.update(spec.model_dump_json().encode())
    return digest.hexdigest()[:12]


def cache_path(spec: TaskSpec, timesteps: int, seed: int, root: Path | None = None) -> Path:
    """Where the baseline of a task (by content), budget and seed is cached."""
    return Path(root or BASELINE_DIR) / spec.name / f"t{timesteps}_s{seed}_{content_key(spec)}.json"


def load_cached(spec: TaskSpec, timesteps: int | None = None, root: Path | None = None) -> dict[str, Any] | None:
    """A cached baseline for this exact task content: the given budget if asked, else the largest budget cached."""
    folder = Path(root or BASELINE_DIR) / spec.name
    key = content_key(spec)
    files = sorted(
        folder.glob(f"t{timesteps}_s*_{key}.json" if timesteps else f"t*_s*_{key}.json"),
        key=lambda p: int(p.stem.split("_")[0][1:]),
        reverse=True,
    )
    for file in files:
        try:
            return json.loads(file.read_text())
        except (OSError, ValueError):
            continue
    return None


def normalized_score(spec: TaskSpec, fitness: float | None, baseline: dict[str, Any] | None) -> float | None:
    """Human-normalised score of a fitness against a cached baseline, None where undefined."""
    if fitness is None or not baseline or baseline.get("human") is None or baseline.get("sparse") is None:
        return None
    return human_normalized(fitness, baseline["human"], baseline["sparse"])


def run_baselines(
    spec: TaskSpec,
    *,
    timesteps: int,
    seed: int,
    device: str = "cpu",
    root: Path | None = None,
    on_progress: dict[str, ProgressFn] | None = None,
) -> dict[str, Any]:
    """Train the human (if the env's reward rewards this task) and sparse baselines in parallel, cached."""
    path = cache_path(spec, timesteps, seed, root)
    if path.is_file():
        return {**json.loads(path.read_text()), "cached": True}
    sources: list[RewardSource] = ["native", "sparse"] if spec.human_baseline else ["sparse"]
    work = path.parent / f"t{timesteps}_s{seed}"

    executor = LocalExecutor(len(sources))

    def train(source: RewardSource) -> tuple[str, tuple[JobResult, Evaluation | None]]:
        return source, train_and_evaluate(
            spec.source,
            None,
            work / source,
            timesteps=timesteps,
            seed=seed,
            eval_episodes=spec.train.eval_episodes,
            executor=executor,
            device=device,
            on_progress=(on_progress or {}).get(source),
            reward_source=source,
        )

    try:
        with ThreadPoolExecutor(max_workers=len(sources)) as pool:
            results = dict(pool.map(train, sources))
    finally:
        executor.shutdown()
    failed = {s: r.error for s, (r, evaluation) in results.items() if evaluation is None}
    if failed:
        raise RewardsmithError(f"baseline training failed for {spec.name}: {failed}")
    measured = {s: evaluation for s, (_, evaluation) in results.items() if evaluation is not None}
    record = {
        "task": spec.name,
        "timesteps": timesteps,
        "seed": seed,
        "human": measured["native"].fitness_mean if "native" in measured else None,
        "sparse": measured["sparse"].fitness_mean,
        "human_success": measured["native"].success_rate if "native" in measured else None,
        "sparse_success": measured["sparse"].success_rate,
    }
    write_json_atomic(path, record)
    return {**record, "cached": False}
