"""The `rewardsmith` command: thin verbs that parse options, call one library function and print.

Each group of verbs lives in its own module and registers itself on `app`. Errors from the library
(`RewardsmithError`) become a one-line message and exit code 2 here, and nowhere else.

- `core`: tasks, describe, train, baseline, doctor.
- `run`: run, resume.
- `check`: the critic on one reward file.
- `batch`: one search per task of a list.
- `review`: runs, review, report, export.
"""

from __future__ import annotations

import os
import sys

import typer
from rich.console import Console

from rewardsmith.errors import RewardsmithError

app = typer.Typer(
    help="An LLM writes reward functions; rewardsmith checks, sandboxes, trains and refines them.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
console = Console()
err_console = Console(stderr=True)

from rewardsmith.cli import (  # noqa: E402 - the verbs register themselves on `app`, defined above
    batch,  # noqa: F401  (registers `batch`)
    check,  # noqa: F401  (registers `check`)
    core,  # noqa: F401  (registers the verbs)
    review,  # noqa: F401  (registers `runs`, `review`, `report`, `export`)
    run,  # noqa: F401  (registers `run` and `resume`)
)


def main() -> None:
    """Console entry point."""
    try:
        app()
    except RewardsmithError as e:
        if os.environ.get("REWARDSMITH_DEBUG"):
            raise
        err_console.print(f"[bold red]error:[/] {e}", highlight=False, soft_wrap=True)
        sys.exit(2)
    except KeyboardInterrupt as e:  # rewardsmith.sandbox.interrupt.Interrupted: 130 for SIGINT, 143 for SIGTERM
        if not getattr(e, "reported", False):
            err_console.print("interrupted; the run folder keeps what finished (resume with `rewardsmith resume DIR`)")
        sys.exit(getattr(e, "exit_code", 130))
    except SystemExit as e:  # typer turns an interrupt into exit 130; a SIGTERM exits 143
        from rewardsmith.sandbox.interrupt import exit_code

        sys.exit(exit_code(e.code))
