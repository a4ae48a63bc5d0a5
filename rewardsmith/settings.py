"""User settings from `rewardsmith.toml` (this folder) or `~/.config/rewardsmith/config.toml`.

```toml
[sandbox]
minimum = ["clean-start", "rlimits", "seccomp", "ast-gate", "landlock"]   # refuse to run with fewer layers
```
"""

from __future__ import annotations

import functools
import os
import tomllib
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from rewardsmith.errors import RewardsmithError, SandboxError
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


def require_sandbox(override: list[str] | None = None) -> None:
    """Refuse (SandboxError) when this machine offers fewer layers than required; probes once per process."""
    from rewardsmith.sandbox.probe import require_minimum

    require_minimum(sandbox_minimum(override), _probe())
