"""`Search`: what one run of the loop holds while it runs, and the two things every round updates through it (the
best candidate so far, the tokens and cost shown)."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from rewardsmith.config import ResolvedConfig
from rewardsmith.llm import Model
from rewardsmith.run_folder.folder import RunFolder
from rewardsmith.search.evidence import load_evidence
from rewardsmith.search.live import Progress, ReplyClock
from rewardsmith.search.selection import best_record, rule_for
from rewardsmith.stages.designer import Designer
from rewardsmith.task import TaskSpec
from rewardsmith.workers.executor import Executor


@dataclass
class Search:
    """Everything one run of the loop holds while it runs."""

    folder: RunFolder
    config: ResolvedConfig
    spec: TaskSpec
    model: Model
    description: str
    """The environment description (`rewardsmith.stages.env_description.describe`), built once per run."""
    designer: Designer
    executor: Executor
    progress: Progress
    best_lock: threading.Lock = field(default_factory=threading.Lock)
    archive_lock: threading.Lock = field(default_factory=threading.Lock)
    replies: ReplyClock = field(default_factory=ReplyClock)
    """How long this run's LLM replies take: the ETA of the ones in flight."""


def update_best(s: Search) -> None:
    """Copy the best candidate so far (by the run's selection rule) to best/ when it changed, and show it."""
    with s.best_lock:
        top = best_record(s.folder.candidates(), rule=rule_for(s.config), evidence=load_evidence(s.folder, s.spec))
        if top is not None and top.id != s.folder.best_id():
            s.folder.save_best(top)
            s.progress.log(f"new best: {top.id} with fitness {top.fitness:.4g}")
        if top is not None:
            s.progress.status(best_candidate=top.id, best_fitness=top.fitness)


def usage(s: Search) -> dict[str, float]:
    """Tokens and cost paid so far in this run (all sessions)."""
    totals = s.folder.llm_totals()
    return {"tokens": totals["tokens"], "cost_usd": totals["cost_usd"]}
