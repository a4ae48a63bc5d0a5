"""The analysis round of an iteration: after halving, every trained candidate of the round without an analysis on
record is analysed (`rewardsmith.stages.analyzer`), in parallel, and each candidate's outcome is shown."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from rewardsmith.run_folder.candidate import CandidateFolder
from rewardsmith.run_folder.names import Event
from rewardsmith.run_folder.records import CandidateRecord
from rewardsmith.search.session import Search
from rewardsmith.stages.analyzer import analyze
from rewardsmith.stages.visual_feedback import vision_refusal


def analysis_round(s: Search, cands: list[CandidateFolder]) -> list[CandidateRecord]:
    """Analyse a round's trained candidates that have no analysis yet; returns the round's records as the parent
    recorded them, in the order of `cands`."""
    known = [(cand, record) for cand in cands if (record := cand.record()) is not None]

    def one(cand: CandidateFolder, record: CandidateRecord) -> CandidateRecord:
        analyse_if_missing(s, cand, record)
        if record.status == "trained":
            s.progress.update(record.id, "analysed", fitness=record.fitness, steps=record.timesteps)
        else:
            s.progress.update(record.id, record.status, reason=record.reason[:100])
        return record

    with ThreadPoolExecutor(max_workers=max(1, len(known)), thread_name_prefix="analysis") as pool:
        return list(pool.map(lambda pair: one(*pair), known))


def analyse_if_missing(s: Search, cand: CandidateFolder, record: CandidateRecord) -> None:
    """Analyse a trained candidate unless the parent's own analysis is on record (`CandidateFolder.analysis` reads
    it only with its proof, so a planted analysis.json counts as missing and is made again)."""
    if record.status == "trained" and cand.analysis() is None:
        analysis = analyze(
            s.spec,
            cand.path,
            model=s.model,
            executor=s.executor,
            env_description=s.description,
            llm_summary=s.config.llm_summary,
            visual=s.config.visual_feedback and vision_refusal(s.model) is None,
        )
        flags = [f.get("code") for f in analysis.get("flags", [])]
        s.folder.event(Event.ANALYSIS_DONE, candidate=record.id, flags=flags)
