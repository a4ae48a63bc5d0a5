"""The `prompt` verb: print the exact designer messages a run would send, with their token counts, before
anyone pays for them."""

from __future__ import annotations

import importlib.util
import json
import os
from pathlib import Path

import typer

from rewardsmith.cli import app, console
from rewardsmith.cli.core import TaskArg


def count_tokens(model: str, messages: list[dict[str, str]]) -> tuple[list[int], str]:
    """Tokens of each message (content plus OpenAI's 4-token message overhead) with tiktoken's encoding for
    `model` (cl100k_base for names it does not know), read offline from the copy litellm ships; and its name."""
    encoding = _encoding(model)
    return [len(encoding.encode(text_of(m["content"]), disallowed_special=())) + 4 for m in messages], encoding.name


def text_of(content) -> str:
    """A message content's text: a string as it is; of text and image parts, the text parts, and a line per image
    (images are priced by the provider, not counted here)."""
    if isinstance(content, str):
        return content
    return "\n".join(p.get("text", "") if p.get("type") == "text" else "[image]" for p in content)


def _encoding(model: str):
    found = importlib.util.find_spec("litellm")
    if found is not None and found.origin:
        os.environ.setdefault(
            "TIKTOKEN_CACHE_DIR", str(Path(found.origin).parent / "litellm_core_utils" / "tokenizers")
        )
    import tiktoken

    try:
        return tiktoken.encoding_for_model(model.split("/")[-1])
    except KeyError:
        return tiktoken.get_encoding("cl100k_base")


def section_tokens(model: str, messages: list[dict[str, str]]) -> list[tuple[str, int]]:
    """Tokens per section: each message split at its markdown headings (`# x`, `## y`, not inside code blocks),
    as (`role: heading`, n) in order; text before a message's first heading counts under the role alone."""
    encoding = _encoding(model)
    rows: list[tuple[str, int]] = []
    for message in messages:
        title, fenced = message["role"], False
        chunk: list[str] = []
        for line in [*text_of(message["content"]).splitlines(), "# end"]:
            fenced ^= line.lstrip().startswith("```")
            if not fenced and line.startswith("#") and line.lstrip("#").startswith(" "):
                text = "\n".join(chunk)
                if text.strip():
                    rows.append((title, len(encoding.encode(text, disallowed_special=()))))
                title, chunk = f"{message['role']}: {line.lstrip('#').strip()[:48]}", []
            chunk.append(line)
    return rows


def designer_messages(task: str, run_dir: Path | None, *, progress: bool = False) -> tuple[list[dict[str, str]], str]:
    """The designer's messages for iteration 1 of `task`, or for the iteration after the last one of `run_dir`
    (its best candidate, feedback, other candidates and history); and which iteration that is. `progress`: as
    with the progress strategy on (a run folder's own setting counts too)."""
    from rewardsmith.errors import RunFolderError
    from rewardsmith.run_folder.folder import RunFolder
    from rewardsmith.search.evidence import load_evidence
    from rewardsmith.search.selection import best_record, rule_for
    from rewardsmith.stages.designer import Designer
    from rewardsmith.stages.env_description import describe
    from rewardsmith.stages.history import prompt_inputs
    from rewardsmith.task import load_task

    if run_dir is None:
        spec = load_task(task)
        return Designer(None, spec, describe(spec), progress=progress).prompt(), "iteration 1"
    if not (Path(run_dir) / "run.json").is_file():
        raise RunFolderError(f"{run_dir}: not a run folder (no run.json)")
    folder = RunFolder(Path(run_dir))
    spec = folder.spec()
    if task not in (spec.name, str(spec.source)) and load_task(task).name != spec.name:
        raise RunFolderError(f"{run_dir} is a run of task '{spec.name}', not '{task}'")
    records = folder.candidates()
    iteration = max((r.iteration for r in records), default=0) + 1
    rule = rule_for(folder.config())
    best = best_record(records, before=iteration, rule=rule, evidence=load_evidence(folder, spec))  # as the run ranks
    if best is None:
        raise RunFolderError(f"{run_dir}: no trained candidate yet, so there is no feedback to show")
    designer = Designer(None, spec, describe(spec), progress=progress or folder.config().progress_bonus > 0)
    return designer.prompt(**prompt_inputs(folder, iteration, best)), f"iteration {iteration}"


@app.command()
def prompt(
    task: str = TaskArg,
    iteration_2_from: Path | None = typer.Option(
        None,
        "--iteration-2-from",
        help="A run folder: show the next iteration's prompt, built from that run's candidates and analyses.",
    ),
    model: str = typer.Option("gpt-4o", help="Count tokens with this model's tokenizer."),
    as_json: bool = typer.Option(False, "--json", help="Print the messages and token counts as JSON."),
    progress: bool = typer.Option(
        False, "--progress", help="As with `run --progress-bonus`: the designer also writes progress(state)."
    ),
    sample: int = typer.Option(
        1, "--sample", min=1, help="Show sample J's request: from 2 on, each ends with its own design emphasis."
    ),
) -> None:
    """Print the exact designer messages that would be sent for TASK, with their token counts (nothing is sent)."""
    from rewardsmith.stages.design_emphasis import EMPHASES, emphasis_for, with_emphasis

    messages, which = designer_messages(task, iteration_2_from, progress=progress)
    emphasis = emphasis_for(sample)
    messages = with_emphasis(messages, emphasis)

    tokens, encoding = count_tokens(model, messages)
    if as_json:
        typer.echo(
            json.dumps(
                {
                    "iteration": which,
                    "sample": sample,
                    "emphasis": emphasis.name if emphasis else None,
                    "messages": messages,
                    "tokens": tokens,
                    "total_tokens": sum(tokens),
                    "sections": section_tokens(model, messages),
                }
            )
        )
        return
    for message, n in zip(messages, tokens, strict=True):
        console.rule(f"{message['role']} ({n:,} tokens)")
        console.print(text_of(message["content"]), markup=False, highlight=False, soft_wrap=True)
    console.rule("tokens per section")
    for title, n in section_tokens(model, messages):
        console.print(f"{n:>6,}  {title}", markup=False, highlight=False)
    console.print(
        "design emphases of a round's samples: 1 none, "
        + ", ".join(f"{k} {e.name}" for k, e in enumerate(EMPHASES, 2))
        + f", then again from {len(EMPHASES) + 2} (`--sample J` shows one)",
        markup=False,
        highlight=False,
    )
    which = f"{which}, sample {sample} (emphasis: {emphasis.name if emphasis else 'none'})"
    console.rule(f"{which}: {len(messages)} messages, {sum(tokens):,} tokens (tiktoken {encoding}, as for {model})")
