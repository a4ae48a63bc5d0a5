"""The `rewardsmith` command: thin verbs that parse options, call one library function and print.

Each group of verbs lives in its own module and registers itself on `app`. Errors from the library
(`RewardsmithError`) become a one-line message and exit code 2 here, and nowhere else.

- `core`: tasks, describe, train, baseline, doctor.
- `run`: run, resume.
- `check`: the critic on one reward file.
- `calibrate`: does a task's search budget tell a good reward from a weak one.
- `new_task`: new-task, a spec and scorer skeleton with an env's real names; check-task, a spec checked and its
  calibration offered.
- `batch`: one search per task of a list.
- `review`: runs, review, report, export.
- `logs`: browse a run's LLM prompts and responses.
- `evaluate`: play a saved policy, scored by the task's trusted fitness.
- `prompt`: print the exact designer messages that would be sent, with their token counts.

Help text is plain (wrapped, never cut) when stdout is not a wide terminal.
"""

from __future__ import annotations

import os
import sys
from typing import Any

import typer
from rich.console import Console
from typer.core import TyperGroup

from rewardsmith.errors import RewardsmithError


def _rich_help() -> str | None:
    """Rich help boxes on a wide terminal; plain, wrapped help (nothing cut) in a pipe or a narrow window."""
    import shutil

    return "rich" if sys.stdout.isatty() and shutil.get_terminal_size().columns >= 100 else None


class _Group(TyperGroup):
    """The verb list in plain help shows each verb's whole first sentence, wrapped, instead of cutting it."""

    def format_commands(self, ctx: Any, formatter: Any) -> None:  # click's Context and HelpFormatter
        rows = []
        for name in self.list_commands(ctx):
            cmd = self.get_command(ctx, name)
            if cmd is not None and not cmd.hidden:
                rows.append((name, " ".join((cmd.help or "").split("\n\n")[0].split())))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


app = typer.Typer(
    cls=_Group,
    help="An LLM writes reward functions; rewardsmith checks, sandboxes, trains and refines them.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
    rich_markup_mode=_rich_help(),  # type: ignore[arg-type]
)
console = Console()
err_console = Console(stderr=True)


def _version(value: bool) -> None:
    if value:
        from rewardsmith import __version__

        typer.echo(f"rewardsmith {__version__}")
        raise typer.Exit()


@app.callback()
def _main_options(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    """An LLM writes reward functions; rewardsmith checks, sandboxes, trains and refines them."""


from rewardsmith.cli import (  # noqa: E402 - the verbs register themselves on `app`, defined above
    batch,  # noqa: F401  (registers `batch`)
    calibrate,  # noqa: F401  (registers `calibrate`)
    check,  # noqa: F401  (registers `check`)
    core,  # noqa: F401  (registers the verbs)
    evaluate,  # noqa: F401  (registers `evaluate`)
    logs,  # noqa: F401  (registers `logs`)
    new_task,  # noqa: F401  (registers `new-task` and `check-task`)
    prompt,  # noqa: F401  (registers `prompt`)
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
        from rewardsmith.formatting import inert

        err_console.print(f"[bold red]error:[/] {inert(e)}", highlight=False, soft_wrap=True)
        sys.exit(2)
    except KeyboardInterrupt as e:  # rewardsmith.sandbox.interrupt.Interrupted: 130 for SIGINT, 143 for SIGTERM
        if not getattr(e, "reported", False):
            err_console.print("interrupted; the run folder keeps what finished (resume with `rewardsmith resume DIR`)")
        sys.exit(getattr(e, "exit_code", 130))
    except SystemExit as e:  # typer turns an interrupt into exit 130; a SIGTERM exits 143
        from rewardsmith.sandbox.interrupt import exit_code

        raise SystemExit(exit_code(e.code)) from None
