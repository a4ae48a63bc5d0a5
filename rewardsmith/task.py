"""Task specs: TOML files under `envs/` naming an environment, a task in words, and a trusted fitness.

A spec is validated with pydantic. Its fitness scorer lives in a Python module next to the spec
(written by the user, never shown to the LLM). See `envs/README.md` for the format.
"""

from __future__ import annotations

import importlib.util
import sys
import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from rewardsmith.errors import TaskSpecError


def _shipped_envs() -> Path:
    """The shipped task specs: `envs/` of a source checkout, or the `rewardsmith_envs` package of a wheel."""
    checkout = Path(__file__).resolve().parent.parent / "envs"
    if checkout.is_dir():
        return checkout
    found = importlib.util.find_spec("rewardsmith_envs")
    locations = list(found.submodule_search_locations or []) if found else []
    return Path(locations[0]) if locations else checkout


ENVS_DIR = _shipped_envs()


class ScorerRef(BaseModel):
    """A trusted episode scorer: `module:Class` in the spec's folder, plus keyword arguments."""

    model_config = ConfigDict(extra="forbid")
    scorer: str = Field(
        description="`module:Class`, module resolved next to the spec file (e.g. `scorers:ForwardProgress`)."
    )
    kwargs: dict[str, Any] = Field(default_factory=dict, description="Keyword arguments for the scorer's constructor.")

    @field_validator("scorer")
    @classmethod
    def _module_colon_class(cls, v: str) -> str:
        if v.count(":") != 1 or not all(v.split(":")):
            raise ValueError(f"expected 'module:Class', got {v!r}")
        return v


class TrainDefaults(BaseModel):
    """How one candidate is trained: RL-Zoo-like defaults per env."""

    model_config = ConfigDict(extra="forbid")
    algo: Literal["PPO", "SAC"] = "PPO"
    timesteps: int = Field(100_000, gt=0, description="Env steps per candidate during the search.")
    final_timesteps: int = Field(300_000, gt=0, description="Env steps for the final retraining of the best reward.")
    n_envs: int = Field(1, ge=1, le=64)
    hyperparams: dict[str, Any] = Field(default_factory=dict, description="Passed to the SB3 algorithm constructor.")
    policy_kwargs: dict[str, Any] = Field(default_factory=dict, description="e.g. {net_arch = [64, 64]}.")
    eval_freq: int = Field(10_000, gt=0, description="Evaluate every this many env steps.")
    eval_episodes: int = Field(5, ge=1)
    max_episode_steps: int | None = Field(None, description="Override the env's time limit.")


class SearchDefaults(BaseModel):
    """Budgets for the designer-critic-analyzer loop."""

    model_config = ConfigDict(extra="forbid")
    iterations: int = Field(3, ge=1)
    samples: int = Field(4, ge=1, description="Reward candidates sampled per iteration (Eureka's K).")
    repair_rounds: int = Field(2, ge=0)
    final_seeds: int = Field(3, ge=1)


class TaskSpec(BaseModel):
    """One task: an environment, a behaviour described in words, and the trusted fitness for it."""

    model_config = ConfigDict(extra="forbid")
    name: str = Field(pattern=r"^[a-z0-9][a-z0-9_-]*$")
    env: str = Field(description="Gymnasium id (`HalfCheetah-v5`) or `module:Class` of an env shipped in `envs/`.")
    env_kwargs: dict[str, Any] = Field(default_factory=dict)
    description: str = Field(min_length=10, description="The task in plain words; this is what the LLM is asked to do.")
    success: str | None = Field(
        None,
        min_length=10,
        description="When the task counts as done, in words and units (shown to the LLM under `# Task`).",
    )
    fitness: ScorerRef = Field(description="Trusted per-episode fitness and success criterion; never shown to the LLM.")
    human_baseline: bool = Field(
        False, description="The env's own reward rewards this task (a 'human' baseline exists)."
    )
    train: TrainDefaults = Field(default_factory=TrainDefaults)
    search: SearchDefaults = Field(default_factory=SearchDefaults)
    source: Path | None = Field(None, exclude=True, description="The TOML file this spec came from.")

    @property
    def folder(self) -> Path:
        """The folder that holds the spec, its scorer modules and any custom env."""
        return self.source.parent if self.source else ENVS_DIR

    @property
    def summary(self) -> str:
        """First line of the description."""
        return self.description.strip().splitlines()[0]


def _format_validation_error(path: Path, err: ValidationError) -> str:
    first = err.errors()[0]
    where = ".".join(str(p) for p in first["loc"]) or "(top level)"
    kind = "missing" if first["type"] == "missing" else first["msg"]
    return f"{path}: invalid task spec: field '{where}': {kind}"


def read_task(path: Path) -> TaskSpec:
    """Read and validate one TOML task spec; raises TaskSpecError naming the file (and line)."""
    path = Path(path)
    if not path.is_file():
        raise TaskSpecError(f"{path}: no such task spec file")
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as e:
        raise TaskSpecError(f"{path}: malformed TOML: {e}") from None
    try:
        spec = TaskSpec.model_validate(data)
    except ValidationError as e:
        raise TaskSpecError(_format_validation_error(path, e)) from None
    return spec.model_copy(update={"source": path.resolve()})


def list_tasks(folder: Path = ENVS_DIR) -> list[TaskSpec]:
    """All task specs in a folder, sorted by name."""
    return sorted((read_task(p) for p in sorted(Path(folder).glob("*.toml"))), key=lambda s: s.name)


def load_task(name_or_path: str | Path) -> TaskSpec:
    """A spec by name (from `envs/`) or by path to a `.toml` file."""
    text = str(name_or_path)
    if text.endswith(".toml") or "/" in text or Path(text).is_file():
        return read_task(Path(text))
    candidate = ENVS_DIR / f"{text}.toml"
    if candidate.is_file():
        return read_task(candidate)
    known = ", ".join(s.name for s in list_tasks()) or "none"
    raise TaskSpecError(f"unknown task '{text}': not a file and not a spec in {ENVS_DIR} (known: {known})")


def import_from_folder(folder: Path, ref: str) -> Any:
    """Import `module:Attr` where `module` is a `.py` file in `folder` (trusted code: specs, scorers, envs)."""
    module_name, attr = ref.split(":")
    file = Path(folder) / (module_name.replace(".", "/") + ".py")
    if not file.is_file():
        raise TaskSpecError(f"{file}: module '{module_name}' (from '{ref}') not found")
    qualified = f"rewardsmith_envs_{abs(hash(str(file.resolve())))}_{module_name.replace('.', '_')}"
    module = sys.modules.get(qualified)
    if module is None:
        specification = importlib.util.spec_from_file_location(qualified, file)
        assert specification and specification.loader
        module = importlib.util.module_from_spec(specification)
        sys.modules[qualified] = module
        specification.loader.exec_module(module)
    if not hasattr(module, attr):
        raise TaskSpecError(f"{file}: no '{attr}' (from '{ref}')")
    return getattr(module, attr)


def make_env(spec: TaskSpec, *, render_mode: str | None = None, **overrides: Any):
    """Build the task's Gymnasium env (with its time limit), raising TaskSpecError for an unknown id."""
    import gymnasium as gym

    kwargs = {**spec.env_kwargs, **overrides}
    if render_mode:
        kwargs["render_mode"] = render_mode
    if spec.train.max_episode_steps:
        kwargs["max_episode_steps"] = spec.train.max_episode_steps
    where = spec.source or spec.name
    try:
        if ":" in spec.env:
            env_cls = import_from_folder(spec.folder, spec.env)
            limit = kwargs.pop("max_episode_steps", None) or 1000
            return gym.wrappers.TimeLimit(env_cls(**kwargs), max_episode_steps=limit)
        return gym.make(spec.env, **kwargs)
    except gym.error.Error as e:
        raise TaskSpecError(f"{where}: cannot make env '{spec.env}': {e}") from None
    except TypeError as e:
        raise TaskSpecError(f"{where}: bad env_kwargs for '{spec.env}': {e}") from None


def make_scorer(spec: TaskSpec):
    """A fresh instance of the spec's trusted episode scorer."""
    scorer_cls = import_from_folder(spec.folder, spec.fitness.scorer)
    try:
        return scorer_cls(**spec.fitness.kwargs)
    except TypeError as e:
        raise TaskSpecError(f"{spec.source}: bad fitness kwargs for {spec.fitness.scorer}: {e}") from None
