"""The shape of a run folder, to compare layouts across code changes: the sorted relative file listing (TensorBoard
event file names and LLM call numbers normalised) and the key sets of the run's JSON records.

`python tests/layout_snapshot.py RUN_DIR` prints it as JSON; `tests/data/run_layout_v0.json` was recorded this way
from a scripted run (tests/data/loop_e2e.jsonl, 2 iterations x 3 samples) before the package was regrouped; the
only changes since are two files at the top level, `.key` and `proofs.jsonl` (the parent's proofs, issue 22 §2), and
each candidate's `emphasis.json` (the design emphasis of its sample, issue 25 §3), and the keys `template` in
candidate.json and `templates` in summary.json (which rewards are the offline model's templates, issue 25 §5).
"""

from __future__ import annotations

import json
import re
import sys
from collections import defaultdict
from pathlib import Path


def snapshot(run: Path) -> dict:
    """Listing and record keys of a run folder. Candidates of one iteration are sampled in parallel, so which
    index got which reply varies: each iteration is compared as a sorted list of its candidates' file lists."""
    files, candidates = set(), defaultdict(list)
    for cand in sorted(run.glob("iter_*/cand_*")):
        listing = sorted(_normalise(p.relative_to(cand).as_posix()) for p in cand.rglob("*") if p.is_file())
        candidates[cand.parent.name].append([name for name in dict.fromkeys(listing) if name])
    for path in run.rglob("*"):
        rel = path.relative_to(run).as_posix()
        if path.is_file() and not rel.startswith("iter_") and _normalise(rel):
            files.add(_normalise(rel))
    keys = {
        "summary.json": sorted(json.loads((run / "summary.json").read_text())),
        "run.json": sorted(json.loads((run / "run.json").read_text())),
        "candidate.json": sorted(json.loads((run / "iter_1/cand_1/candidate.json").read_text())),
        "final": sorted(json.loads((run / "summary.json").read_text())["final"]),
    }
    return {"files": sorted(files), "iterations": {i: sorted(c) for i, c in sorted(candidates.items())}, "keys": keys}


def _normalise(rel: str) -> str:
    if "__pycache__" in rel or re.match(r"(rung_screen/)?screen/", rel):
        return ""  # a screen's worker folder exists only when the archive had the episodes to judge (noise)
    if re.match(r"(second_seed/|seed_spread\.json$)", rel):
        return ""  # second-seed repeats exist only when two candidates were within noise of each other
    rel = re.sub(r"(^|/)tb/.*", r"\1tb/*", rel)
    return re.sub(r"^llm/cache/.*", "llm/cache/*", rel)


if __name__ == "__main__":
    print(json.dumps(snapshot(Path(sys.argv[1])), indent=1))
