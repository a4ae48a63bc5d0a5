"""User settings from `rewardsmith.toml` (this folder) or `~/.config/rewardsmith/config.toml`.

```toml
[sandbox]
minimum = ["clean-start", "rlimits", "seccomp", "ast-gate", "uid-drop", "landlock"]   # refuse with fewer layers
allow_uid0 = false   # true: run even where workers would keep uid 0 (also REWARDSMITH_ALLOW_UID0=1)
```
"""

from __future__ import annotations

import functools
import os
import tomllib
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from rewardsmith.errors import RewardsmithError, SandboxError
from rewardsmith.once import say_once
from rewardsmith.sandbox.probe import DEFAULT_MINIMUM, LAYERS


def validate_layers(layers: list[str]) -> list[str]:
    """Layer names checked against the ones `rewardsmith doctor` knows."""
    unknown = [name for name in layers if name not in LAYERS]
    if unknown:
        raise ValueError(f"unknown sandbox layer(s) {', '.join(unknown)}; known: {', '.join(LAYERS)}")
    return layers


class SandboxConfig(BaseModel):
    """`[sandbox]`: what the machine must offer before generated code may run."""

    model_config = ConfigDict(extra="forbid")
    minimum: list[str] = Field(
        default_factory=lambda: list(DEFAULT_MINIMUM),
        description="Layers that must hold (see `rewardsmith doctor`), else runs refuse to start.",
    )

    allow_uid0: bool = Field(
        False,
        description="Run even where workers would keep uid 0 (no uid drop here); says so loudly on every run.",
    )

    @field_validator("minimum")
    @classmethod
    def _known_layers(cls, layers: list[str]) -> list[str]:
        return validate_layers(layers)


class UserConfig(BaseModel):
    """The whole settings file."""

    model_config = ConfigDict(extra="forbid")
    sandbox: SandboxConfig = Field(default_factory=SandboxConfig)


def config_paths() -> list[Path]:
    """Where settings are looked for, first match wins."""
    home = Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config")
    return [Path("rewardsmith.toml"), home / "rewardsmith" / "config.toml"]


@functools.cache
def user_config() -> UserConfig:
    """The first settings file found (defaults if none); RewardsmithError names a bad file."""
    for path in config_paths():
        if path.is_file():
            try:
                return UserConfig.model_validate(tomllib.loads(path.read_text(encoding="utf-8")))
            except (tomllib.TOMLDecodeError, ValidationError) as e:
                raise RewardsmithError(f"{path}: invalid settings: {e}") from None
    return UserConfig()


def sandbox_minimum(override: list[str] | None = None) -> list[str]:
    """The required layers: the command-line override, else the settings file, else the default."""
    if override is None:
        return user_config().sandbox.minimum
    try:
        return validate_layers(override)
    except ValueError as e:
        raise SandboxError(f"--sandbox-minimum: {e}") from None


@functools.cache
def _probe():
    from rewardsmith.sandbox.probe import probe_layers

    return probe_layers()


ALLOW_UID0_ENV = "REWARDSMITH_ALLOW_UID0"


def allow_uid0() -> bool:
    """Whether the user opted in to workers that keep uid 0 (settings `allow_uid0` or REWARDSMITH_ALLOW_UID0=1)."""
    return os.environ.get(ALLOW_UID0_ENV, "") not in ("", "0") or user_config().sandbox.allow_uid0


def require_sandbox(override: list[str] | None = None) -> None:
    """Refuse (SandboxError) when this machine offers fewer layers than required; probes once per process.

    A missing uid-drop is accepted only with the `allow_uid0` opt-in, and then announced on stderr (once per
    process: a batch checks before each task)."""
    from rewardsmith.sandbox.probe import require_minimum

    minimum, status = sandbox_minimum(override), _probe()
    if "uid-drop" in minimum and not status["uid-drop"].ok and allow_uid0():
        minimum = [name for name in minimum if name != "uid-drop"]
        detail = status["uid-drop"].detail
        say_once(
            f"WARNING: sandboxed workers keep uid 0 on this machine (allowed by allow_uid0 / {ALLOW_UID0_ENV}): {detail}",
            _stderr,
        )
    require_minimum(minimum, status)


def _stderr(text: str) -> None:
    import sys

    print(text, file=sys.stderr, flush=True)
