"""What the designer is shown of earlier iterations, read from a run folder.

ICPL and REvolve show several rewards with their scores, not only the best: here the best candidate
(its code, its analysis feedback and the model's own reply that produced it), the top and bottom trained
candidates as unified diffs against the best with their fitness and component statistics, and one history
row per candidate tried. Used by the search loop and by `rewardsmith prompt --iteration-2-from`.
"""

from __future__ import annotations

import difflib
import json
from typing import Any

from rewardsmith.errors import ExtractionError
from rewardsmith.run_folder.folder import RunFolder
from rewardsmith.run_folder.records import CandidateRecord, Finding
from rewardsmith.stages.designer import Best, HistoryRow, Neighbour, is_duplicate
from rewardsmith.stages.extract import dedupe, extract_reward_code
from rewardsmith.stages.human_feedback import recorded
from rewardsmith.stages.visual_feedback import image_parts

TOP, BOTTOM = 2, 1
DIFF_LINES = 40
UNSEEN_IN_TRAINING = ("shuttle", "state-blind")
"""The critic's warnings on an accepted reward that the analysis of its training cannot show again (a constant or
dominant term it does: the analyzer's own flags); the designer is told them with the best candidate, and their codes
in its history row."""


def candidate_code(folder: RunFolder, record: CandidateRecord) -> str:
    """The trained reward code of a candidate, without the loop's header (verified: a reward file the parent did
    not write is never shown to the designer)."""
    return folder.cand_of(record).reward_code() or ""


def run_codes(folder: RunFolder) -> list[str]:
    """Every code the run has tried, oldest candidate first: each attempt's (verified) and each reward file, once
    each. A model that avoids repeats is told them (`Designer.sample`'s `avoid`)."""
    codes: list[str] = []
    for record in folder.candidates():
        cand = folder.cand_of(record)
        files = [cand.file(a.file) for a in cand.attempts() if a.file and a.file.endswith(".py")]
        found = [data.decode("utf-8", "replace") for path in files if (data := cand.verified(path)) is not None]
        codes += [*found, candidate_code(folder, record)]
    return dedupe([code for code in codes if code.strip()])


def best_reply(folder: RunFolder, code: str) -> str | None:
    """The last designer reply on record (`llm/NNNN_designer.json`) whose code is `code`."""
    logs = sorted((folder.path / "llm").glob("*_designer.json"), reverse=True)
    for path in logs:
        try:
            record = json.loads(path.read_text(encoding="utf-8"))
            text = record.get("response")
            if isinstance(text, str) and is_duplicate(extract_reward_code(text), [code]):
                return text
        except (OSError, ValueError, ExtractionError, SyntaxError):
            continue
    return None


def best_for_prompt(folder: RunFolder, record: CandidateRecord | None) -> Best | None:
    """The best candidate as the designer sees it: its code, its analysis feedback and its reply."""
    if record is None:
        return None
    analysis = folder.analysis(record) or {}
    code = candidate_code(folder, record)
    visual = getattr(folder.config(), "visual_feedback", False)
    feedback = analysis.get("feedback") or "(no analysis was recorded)"
    if warned := critic_warnings(folder, record):
        feedback += "\nBefore training, the critic accepted this reward with a warning:\n"
        feedback += "\n".join(f"- {f.code}: {f.message}" for f in warned)
    return Best(
        record.id,
        code,
        record.fitness or 0.0,
        record.success_rate,
        feedback,
        best_reply(folder, code),
        image_parts(folder.cand_of(record).path, analysis.get("frames")) if visual else [],
    )


def critic_warnings(folder: RunFolder, record: CandidateRecord) -> list[Finding]:
    """The critic's `UNSEEN_IN_TRAINING` warnings on a candidate's reward (its verified `critic.json`)."""
    critic = folder.cand_of(record).critic()
    found = critic.findings if critic is not None and critic.accepted else []
    return [f for f in found if f.severity == "warning" and f.code in UNSEEN_IN_TRAINING]


def history(folder: RunFolder, iteration: int) -> list[HistoryRow]:
    """One row per candidate of the earlier iterations: what was tried and how it scored."""
    rows = []
    for r in folder.candidates():
        if r.iteration >= iteration:
            continue
        analysis = folder.analysis(r) or {}
        flags = (
            ", ".join(
                [
                    *(f.get("code", "?") for f in analysis.get("flags", [])),
                    *(f"critic: {f.code}" for f in critic_warnings(folder, r)),
                ]
            )
            if r.status == "trained"
            else " ".join(r.reason.split())[:120]
        )
        rows.append(
            HistoryRow(
                r.id,
                r.parent,
                r.status,
                "-" if r.fitness is None else f"{r.fitness:.4g}",
                "-" if r.success_rate is None else f"{r.success_rate:.2f}",
                flags or "-",
            )
        )
    return rows


def component_summary(analysis: dict[str, Any]) -> str:
    """`name mean M per step P` for each component of an analysis, on one line."""
    parts = []
    for name, c in (analysis.get("components") or {}).items():
        per_step = c.get("per_step_mean")
        step = f", per step {per_step:.3g}" if isinstance(per_step, (int, float)) else ""
        parts.append(f"{name} episode sum mean {c.get('mean', 0):.3g}{step}")
    return "; ".join(parts) or "(no component data)"


def neighbours(folder: RunFolder, iteration: int, best: CandidateRecord | None) -> list[Neighbour]:
    """The top and bottom trained candidates of earlier iterations (not the best), as diffs against the best."""
    if best is None:
        return []
    trained = sorted(
        (r for r in folder.candidates() if r.iteration < iteration and r.status == "trained" and r.id != best.id),
        key=lambda r: r.fitness if r.fitness is not None else float("-inf"),
        reverse=True,
    )
    bottom = trained[-BOTTOM:] if len(trained) > 1 else []
    picks = [("top", r) for r in trained[:TOP] if r not in bottom] + [("bottom", r) for r in bottom]
    best_code = candidate_code(folder, best).splitlines()
    shown = []
    for rank, r in picks:
        diff = list(
            difflib.unified_diff(
                best_code,
                candidate_code(folder, r).splitlines(),
                f"best {best.id}",
                f"candidate {r.id}",
                n=1,
                lineterm="",
            )
        )
        if len(diff) > DIFF_LINES:
            diff = diff[:DIFF_LINES] + [f"... ({len(diff) - DIFF_LINES} more diff lines)"]
        shown.append(
            Neighbour(
                r.id,
                rank,
                r.fitness or 0.0,
                r.success_rate,
                "\n".join(diff) or "(same code as the best)",
                component_summary(folder.analysis(r) or {}),
            )
        )
    return shown


def prompt_inputs(
    folder: RunFolder, iteration: int, best: CandidateRecord | None, *, best_only: bool = False
) -> dict[str, Any]:
    """Keyword arguments of `Designer.prompt` for an iteration: best, history, neighbours (`best_only`: Eureka's
    context, the best candidate alone) and the user's feedback so far (`--feedback`)."""
    return {
        "best": best_for_prompt(folder, best),
        "history": [] if best_only else history(folder, iteration),
        "neighbours": [] if best_only else neighbours(folder, iteration, best),
        "human": recorded(folder, before=iteration),
    }
