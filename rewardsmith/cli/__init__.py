"""The `rewardsmith` command: thin verbs that parse options, call one library function and print.

Each group of verbs lives in its own module and registers itself on `app`. Errors from the library
(`RewardsmithError`) become a one-line message and exit code 2 here, and nowhere else.
"""

from __future__ import annotations

import os
import sys

import typer
from rich.console import Console

from rewardsmith.errors import RewardsmithError

app = typer.Typer(help="An LLM writes reward functions; rewardsmith checks, sandboxes, trains and refines them.",
                  no_args_is_help=True, pretty_exceptions_enable=False, add_completion=False)
console = Console()
err_console = Console(stderr=True)

from rewardsmith.cli import core  # noqa: E402,F401  (registers the verbs)
from rewardsmith.cli import run  # noqa: E402,F401  (registers `run` and `resume`)
from rewardsmith.cli import check  # noqa: E402,F401  (registers `check`)
from rewardsmith.cli import review  # noqa: E402,F401  (registers `runs`, `review`, `report`, `export`)
from rewardsmith.cli import batch  # noqa: E402,F401  (registers `batch`)


def main() -> None:
    """Console entry point."""
    try:
        app()
    except RewardsmithError as e:
        if os.environ.get("REWARDSMITH_DEBUG"):
            raise
        err_console.print(f"[bold red]error:[/] {e}", highlight=False, soft_wrap=True)
        sys.exit(2)
    except KeyboardInterrupt:
        err_console.print("interrupted; the run folder keeps what finished (resume with `rewardsmith resume DIR`)")
        sys.exit(130)
