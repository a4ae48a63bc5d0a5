"""The prompt bench: per shipped task, the tokens of the designer's iteration-1 request, per section (each message
split at its markdown headings), and the same for iteration 2 when `--iteration-2-from RUN` names a run folder.

Run: `.venv/bin/python bench/prompts.py [--tasks a,b] [--iteration-2-from RUN] [--model gpt-4o]`. Prints one block
per task (section, tokens) and a closing table: task, system, user, total, and the largest request of a round
(the total with the longest sample's design emphasis).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT)]

from rewardsmith.cli.prompt import count_tokens, designer_messages, section_tokens  # noqa: E402
from rewardsmith.stages.design_emphasis import EMPHASES, emphasis_for, with_emphasis  # noqa: E402
from rewardsmith.task import list_tasks  # noqa: E402


def main() -> None:
    """Print the per-section token counts of every (or the named) shipped task's designer request."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", default="", help="comma-separated task names (default: every shipped task)")
    parser.add_argument("--iteration-2-from", type=Path, default=None, help="a run folder: iteration 2 of its task")
    parser.add_argument("--model", default="gpt-4o")
    parser.add_argument("--sections", action="store_true", help="also print each task's sections")
    args = parser.parse_args()
    names = [t for t in args.tasks.split(",") if t] or [s.name for s in list_tasks()]
    rows = []
    for name in names:
        messages, which = designer_messages(name, args.iteration_2_from)
        tokens, _ = count_tokens(args.model, messages)
        if args.sections:
            print(f"## {name} ({which})")
            for title, n in section_tokens(args.model, messages):
                print(f"{n:>6}  {title}")
        samples = [with_emphasis(messages, emphasis_for(k)) for k in range(1, len(EMPHASES) + 2)]
        rows.append((name, which, tokens, max(sum(count_tokens(args.model, m)[0]) for m in samples)))
    print(f"{'task':36} {'iteration':12} {'system':>7} {'user':>7} {'total':>7} {'largest':>8}")
    for name, which, tokens, largest in rows:
        print(f"{name:36} {which:12} {tokens[0]:>7} {sum(tokens[1:]):>7} {sum(tokens):>7} {largest:>8}")


if __name__ == "__main__":
    main()
