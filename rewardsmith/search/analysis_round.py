"""The analysis round of an iteration: after halving, every trained candidate of the round without an analysis on
record is analysed (`rewardsmith.stages.analyzer`), in parallel, and each candidate's outcome is shown."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from rewardsmith.run_folder.names import Event
from rewardsmith.run_folder.records import CandidateRecord
from rewardsmith.search.session import Search
from rewardsmith.stages.analyzer import analyze


def analysis_round(s: Search, iteration: int, indices: list[int]) -> list[CandidateRecord]:
    """Analyse the trained candidates `indices` of `iteration` that have no analysis yet; returns the round's
    records as the parent recorded them, in the order of `indices`."""
    records = [s.folder.candidate(iteration, j) for j in indices]
    known = [r for r in records if r is not None]

    def one(record: CandidateRecord) -> CandidateRecord:
        if record.status == "trained" and s.folder.analysis(record) is None:
            analysis = analyze(
                s.spec,
                s.folder.cand_dir(record.iteration, record.index),
                model=s.model,
                executor=s.executor,
                env_description=s.description,
                llm_summary=s.config.llm_summary,
            )
            flags = [f.get("code") for f in analysis.get("flags", [])]
            s.folder.event(Event.ANALYSIS_DONE, candidate=record.id, flags=flags)
        if record.status == "trained":
            s.progress.update(record.id, "analysed", fitness=record.fitness)
        else:
            s.progress.update(record.id, record.status, reason=record.reason[:100])
        return record

    with ThreadPoolExecutor(max_workers=max(1, len(known)), thread_name_prefix="analysis") as pool:
        return list(pool.map(one, known))
