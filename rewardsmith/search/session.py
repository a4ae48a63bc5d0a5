"""`Search`: what one run of the loop holds while it runs, and the two things every round updates through it (the
best candidate so far, the tokens and cost shown)."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from rewardsmith.config import ResolvedConfig
from rewardsmith.formatting import cell, pick_number, se_suffix
from rewardsmith.llm import Model
from rewardsmith.run_folder.folder import RunFolder
from rewardsmith.run_folder.records import CandidateRecord
from rewardsmith.search.evidence import Evidence, load_evidence
from rewardsmith.search.live import Progress, ReplyClock
from rewardsmith.search.selection import Rule, best_record, rule_for, trained, why_ahead
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
        rule, evidence = rule_for(s.config), load_evidence(s.folder, s.spec)
        records = s.folder.candidates()
        top = best_record(records, rule=rule, evidence=evidence)
        if top is not None and top.id != s.folder.best_id():
            s.folder.save_best(top)
            s.progress.log(best_line(top, records, rule, evidence))
        if top is not None:
            seeds = _seeds(top, evidence)
            s.progress.status(
                best_candidate=top.id,
                best_fitness=pick_number(top.fitness, seeds),
                best_seeds=len(seeds),
                best_steps=top.timesteps,
            )


def _seeds(record: CandidateRecord, evidence: Evidence) -> list[float]:
    """Each seed's search fitness where `record` was trained on more than one at its budget (the pick compares
    their mean, `formatting.pick_number`), else none."""
    repeat = evidence.repeat(record.id, record.timesteps)
    return list(repeat.fitness) if repeat is not None else []


def best_line(top: CandidateRecord, records: list[CandidateRecord], rule: Rule, evidence: Evidence) -> str:
    """`new best: 1.2, search fitness 0.8 ± 0.05 s.e. at 4,096 steps` (or the mean of its seeds where it was trained
    on more than one there, as the pick compared it), and when another trained candidate has a
    higher single number, why the run's rule ranks `top` above it (`why_ahead`), so the line never contradicts
    the candidates' own lines."""
    seeds = _seeds(top, evidence)
    if seeds:  # the pick compared the mean of its seeds
        fitness = f"{cell(pick_number(top.fitness, seeds))} (mean of {len(seeds)} seeds: {', '.join(map(cell, seeds))})"
    else:
        fitness = f"{cell(top.fitness)}{se_suffix(top.fitness_se)}"
    line = f"new best: {top.id}, search fitness {fitness} at {top.timesteps:,} steps"
    higher = [r for r in trained(records) if r.id != top.id and (r.fitness or 0.0) > (top.fitness or 0.0)]
    if not higher:
        return line
    rival = max(higher, key=lambda r: r.fitness or 0.0)
    return f"{line}; it ranks above {rival.id} (fitness {cell(rival.fitness)}) because {why_ahead(top, rival, rule, evidence)}"


def usage(s: Search) -> dict[str, float]:
    """Tokens and cost paid so far in this run (all sessions)."""
    totals = s.folder.llm_totals()
    return {"tokens": totals["tokens"], "cost_usd": totals["cost_usd"]}
