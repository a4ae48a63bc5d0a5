"""The options of `run` and `batch`, generated from `RunConfig`'s fields: each option is declared once, as a field
(its type, constraints and description, the `--help` text), so both verbs offer every run option alike.

A field `foo_bar` becomes `--foo-bar`; a bool `--foo-bar/--no-foo-bar` (or its `Cli.switch` pair); a list a
comma-separated value; a Literal a choice. Every generated option defaults to "not given", so the field's own
default applies (shown in `--help` from the field, or from `Cli.default`), and a batch passes on only what the
user gave.
"""

from __future__ import annotations

import enum
import functools
import inspect
import types
import typing
from collections.abc import Callable, Collection
from pathlib import Path
from typing import Any, Literal, TypeVar

import annotated_types
import typer
from pydantic import ValidationError
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

from rewardsmith.config import Cli, RunConfig

R = TypeVar("R")


def flag(name: str) -> str:
    """The long flag of a RunConfig field: `final_seeds` -> `--final-seeds`."""
    return "--" + name.replace("_", "-")


def run_options(*, skip: Collection[str] = ()) -> Callable[[Callable[..., R]], Callable[..., R]]:
    """Decorator for a command function with a keyword parameter `options`: the command gets one option per
    RunConfig field but `task` and `skip`, and `options` receives the ones given, as RunConfig values
    (`given`)."""
    names = [name for name in RunConfig.model_fields if name != "task" and name not in skip]

    def decorate(function: Callable[..., R]) -> Callable[..., R]:
        own = inspect.signature(function)
        hints = typing.get_type_hints(function)
        kept = [p.replace(annotation=hints.get(p.name, p.annotation)) for p in own.parameters.values()]
        kept = [p for p in kept if p.name != "options"]
        generated = [
            inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=info, annotation=kind)
            for name in names
            for kind, info in [_option(name, RunConfig.model_fields[name])]
        ]

        @functools.wraps(function)
        def command(**values: Any) -> R:
            options = given({name: values.pop(name) for name in names})
            return function(**values, options=options)

        parameters = [
            *[p.replace(kind=inspect.Parameter.KEYWORD_ONLY) for p in kept],
            *generated,
        ]
        command.__signature__ = own.replace(parameters=parameters)  # type: ignore[attr-defined]
        command.__annotations__ = {p.name: p.annotation for p in parameters}
        return command

    return decorate


def given(values: dict[str, Any]) -> dict[str, Any]:
    """The options the user gave (None or an empty list: not given), as RunConfig field values: choices as their
    text, lists split at commas; a --timesteps without --final-timesteps sizes the final retraining too."""
    options: dict[str, Any] = {}
    for name, value in values.items():
        if value is None:
            continue
        if isinstance(value, enum.Enum):
            value = value.value
        elif _origin(RunConfig.model_fields[name].annotation) is list:
            value = [part.strip() for part in str(value).split(",") if part.strip()]
            if not value:
                continue  # `--sandbox-minimum ""` is the default, never "no layers"
        options[name] = value
    if "timesteps" in options and "final_timesteps" in values and "final_timesteps" not in options:
        options["final_timesteps"] = options["timesteps"]
    return options


def run_config(task: str, options: dict[str, Any]) -> RunConfig:
    """`RunConfig(task=task, **options)`; a value it refuses is a usage error naming the option."""
    try:
        return RunConfig(task=task, **options)
    except ValidationError as e:
        error = e.errors()[0]
        name = str(error["loc"][0]) if error["loc"] else ""
        message = error["msg"].removeprefix("Value error, ")  # a validator's own message names what it got
        shown = f" (got {options[name]!r})" if name in options and error["type"] != "value_error" else ""
        raise typer.BadParameter(f"{message}{shown}", param_hint=flag(name) if name else None) from None


def _bare(annotation: Any) -> Any:
    """`X` for `X | None`; anything else as it is."""
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(args) == 1:
            return args[0]
    return annotation


def _origin(annotation: Any) -> Any:
    """`list` for `list[str] | None`, `Literal` for a Literal, else the bare type."""
    bare = _bare(annotation)
    return typing.get_origin(bare) or bare


def _option(name: str, field: FieldInfo) -> tuple[Any, Any]:
    """The annotation and typer.Option of one field."""
    meta = next((m for m in field.metadata if isinstance(m, Cli)), Cli())
    kind = _origin(field.annotation)
    long, help_text = flag(name), field.description or ""
    extra: dict[str, Any] = {}
    if kind is bool:
        on, off = meta.switch or (long, f"--no-{long[2:]}")
        decls: list[str] = [f"{on}/{off}"]
        annotation: Any = bool
    elif kind is Literal:
        choices = typing.get_args(_bare(field.annotation))
        annotation = _choice_type(name.title().replace("_", ""), choices)
        decls = [long]
    elif kind is list:
        annotation, decls = str, [long]
        help_text += " Comma-separated."
        extra["metavar"] = "A,B"
    else:
        annotation, decls = (kind if kind in (int, float, str, Path) else str), [long]
        for constraint in field.metadata:
            if isinstance(constraint, annotated_types.Ge):
                extra["min"] = constraint.ge
            elif isinstance(constraint, annotated_types.Le):
                extra["max"] = constraint.le
    if meta.short:
        decls.append(meta.short)
    default = _default_text(field, meta)
    if default is not None:
        help_text += f" Default: {default}."
    info = typer.Option(None, *decls, help=help_text, show_default=False, **extra)
    return annotation | None, info


def _choice_type(name: str, choices: tuple[str, ...]) -> Any:
    """A str Enum of the choices: typer's choice type in every version it supports."""
    members = {choice: choice for choice in choices}
    return enum.Enum(name, members, type=str)


def _default_text(field: FieldInfo, meta: Cli) -> str | None:
    """The default `--help` names: `Cli.default`, else the field's default (on/off for a bool); None where it is
    None (the description says what happens then)."""
    if meta.default is not None:
        return meta.default
    default = field.default
    if default is None or default is PydanticUndefined:
        return None
    if isinstance(default, bool):
        return "on" if default else "off"
    return str(default)
