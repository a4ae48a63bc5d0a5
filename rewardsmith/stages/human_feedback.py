"""Human feedback between iterations (`--feedback ask|FILE`): Text2Reward's sentence, ICPL's ranking.

After an iteration the user sees its candidates (search fitness with its standard error, the video when there is
one) and answers in free text, a ranking line (`rank: 1.2 > 1.1 > 1.3`, best first), both, or nothing (the
search goes on unchanged). `FILE` holds the same for unattended runs and batches: text under a heading
`# after iteration N` is given after iteration N; text before the first heading after every iteration.

Every answer, empty ones included, is recorded as a `human_feedback` event, so a resumed run replays it and asks
nothing twice; the designer's next prompts show every answer given so far (`recorded`).

    answer = collect(folder, "ask", 1, pause=progress)   # or "notes.txt"
    recorded(folder, before=2)                            # [Feedback(iteration=1, text=..., ranking=[...])]
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from rewardsmith.errors import FeedbackError
from rewardsmith.formatting import cell, inert
from rewardsmith.run_folder.folder import RunFolder
from rewardsmith.run_folder.names import Event
from rewardsmith.run_folder.records import CandidateRecord

EVENT = Event.HUMAN_FEEDBACK
MAX_CHARS = 4000
"""Longest answer kept (a file pasted by mistake must not fill the prompt)."""
_HEADING = re.compile(r"^#\s*after\s+iteration\s+(\d+)\s*$", re.IGNORECASE)
_RANK = re.compile(r"^\s*rank\s*:\s*(.*)$", re.IGNORECASE)


@dataclass
class Feedback:
    """What the user said after one iteration."""

    iteration: int
    text: str = ""
    ranking: list[str] = field(default_factory=list)
    """Candidate ids, best first."""
    source: str = ""

    @property
    def empty(self) -> bool:
        return not self.text and not self.ranking


def parse(answer: str, known: list[str]) -> tuple[str, list[str]]:
    """(free text, ranking) of an answer; FeedbackError naming the problem for a ranking of unknown ids."""
    text_lines, ranking = [], []
    for line in answer.strip().splitlines():
        rank = _RANK.match(line)
        if rank is None:
            text_lines.append(line.rstrip())
            continue
        ids = [part.strip() for part in re.split(r"[>,\s]+", rank.group(1)) if part.strip()]
        unknown = [i for i in ids if i not in known]
        if unknown or len(set(ids)) != len(ids) or len(ids) < 2:
            raise FeedbackError(
                f"ranking {rank.group(1).strip()!r}: name at least two different candidates of this run, best first "
                f"(unknown: {', '.join(unknown) or 'none'}; known: {', '.join(known)})"
            )
        ranking = ids
    return "\n".join(text_lines).strip()[:MAX_CHARS], ranking


def file_answer(path: Path, iteration: int) -> str:
    """The text `path` gives after `iteration`: its lead-in (before any heading) plus the block under
    `# after iteration N`."""
    try:
        content = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise FeedbackError(f"--feedback {path}: cannot read the feedback file ({e})") from None
    blocks: dict[int | None, list[str]] = {None: []}
    current: int | None = None
    for line in content.splitlines():
        heading = _HEADING.match(line)
        if heading:
            current = int(heading.group(1))
            blocks.setdefault(current, [])
        else:
            blocks[current].append(line)
    return "\n".join([*blocks[None], *blocks.get(iteration, [])]).strip()


def check_option(option: str | None) -> None:
    """FeedbackError before a run starts for a `--feedback` it could not honour."""
    if option is None:
        return
    if option == "ask":
        if not sys.stdin.isatty():
            raise FeedbackError(
                "--feedback ask needs a terminal to type into (stdin is not one); write the answers to a file "
                "and pass --feedback FILE"
            )
        return
    if not Path(option).is_file():
        raise FeedbackError(f"--feedback {option}: no such file (pass 'ask' or a text file of answers)")
    file_answer(Path(option), 0)  # unreadable or not UTF-8: say so now, not after the first iteration was paid for


def recorded(folder: RunFolder, before: int) -> list[Feedback]:
    """Every non-empty answer given after iterations before `before`, oldest first."""
    found: dict[int, Feedback] = {}
    for e in folder.events():
        if e.get("event") != EVENT or not isinstance(e.get("iteration"), int) or e["iteration"] >= before:
            continue
        ranking = e.get("ranking")
        found[e["iteration"]] = Feedback(
            iteration=e["iteration"],
            text=str(e.get("text") or "")[:MAX_CHARS],
            ranking=[str(i) for i in ranking] if isinstance(ranking, list) else [],
            source=str(e.get("source") or ""),
        )
    return [f for _, f in sorted(found.items()) if not f.empty]


def summary_lines(folder: RunFolder, iteration: int) -> list[str]:
    """What the user sees before answering: each candidate of the iteration with its fitness and where to look."""
    lines = [f"iteration {iteration} of run {folder.path}:"]
    for r in (c for c in folder.candidates() if c.iteration == iteration):
        lines.append(f"  {r.id}  {_result(r)}")
        video = folder.cand_dir(r.iteration, r.index) / "video.mp4"
        if video.is_file():
            lines.append(f"        video: {video}")
    lines.append(f"  the whole evidence: rewardsmith report {folder.path}")
    return lines


def _result(r: CandidateRecord) -> str:
    if r.status != "trained" or r.fitness is None:
        return f"{r.status}" + (f": {inert(r.reason[:120], markup=False)}" if r.reason else "")
    se = f" ± {cell(r.fitness_se, 2)} (standard error, {r.episodes} episodes)" if r.fitness_se is not None else ""
    success = f", success {r.success_rate:.0%}" if r.success_rate is not None else ""
    return f"search fitness {cell(r.fitness)}{se}{success}"


PROMPT = (
    "Your feedback for the next iteration (free text, and/or a line 'rank: ID > ID > ...' best first; "
    "an empty answer goes on unchanged). End with an empty line:"
)


def ask(folder: RunFolder, iteration: int, read: Callable[[str], str] = input) -> str:
    """Show the iteration's summary and read an answer from the terminal, up to an empty line."""
    print("\n".join(summary_lines(folder, iteration)))
    print(PROMPT)
    lines = []
    while True:
        try:
            line = read("> ")
        except EOFError:
            break
        if not line.strip():
            break
        lines.append(line)
    return "\n".join(lines)


def collect(folder: RunFolder, option: str, iteration: int, read: Callable[[str], str] = input) -> Feedback:
    """The answer after `iteration`: replayed from the run's events when given before (resume), else asked
    (`option` "ask", again until a ranking parses) or read from the file `option`; recorded either way."""
    for e in folder.events():
        if e.get("event") == EVENT and e.get("iteration") == iteration:
            return next((f for f in recorded(folder, iteration + 1) if f.iteration == iteration), Feedback(iteration))
    known = [r.id for r in folder.candidates()]
    while True:
        answer = ask(folder, iteration, read) if option == "ask" else file_answer(Path(option), iteration)
        try:
            text, ranking = parse(answer, known)
            break
        except FeedbackError as e:
            if option != "ask":
                raise
            print(f"error: {e}; try again")
    source = "terminal" if option == "ask" else str(Path(option).resolve())
    folder.event(EVENT, iteration=iteration, text=text, ranking=ranking, source=source)
    return Feedback(iteration=iteration, text=text, ranking=ranking, source=source)
