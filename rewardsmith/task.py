"""Task specs: TOML files under `envs/` naming an environment, a task in words, and a trusted fitness.

A spec is validated with pydantic. Its fitness scorer lives in a Python module next to the spec
(written by the user, never shown to the LLM). See `envs/README.md` for the format.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.machinery
import importlib.util
import json
import os
import re
import shlex
import sys
import tempfile
import threading
import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from rewardsmith.errors import EnvKwargsError, TaskSpecError, extra_hint
from rewardsmith.formatting import se_words


def _shipped_envs() -> Path:
    """The shipped task specs: `envs/` of a source checkout, or the `rewardsmith_envs` package of a wheel."""
    checkout = Path(__file__).resolve().parent.parent / "envs"
    if checkout.is_dir():
        return checkout
    found = importlib.util.find_spec("rewardsmith_envs")
    locations = list(found.submodule_search_locations or []) if found else []
    return Path(locations[0]) if locations else checkout


ENVS_DIR = _shipped_envs()
TASKS_PATH_VAR = "REWARDSMITH_TASKS"  # extra folders of user specs, os.pathsep-separated, searched after envs/
ACTIVATIONS = ("tanh", "relu", "elu", "leaky_relu", "gelu", "silu", "selu", "sigmoid")


def user_task_dirs() -> list[Path]:
    """The user's own spec folders, from the `REWARDSMITH_TASKS` environment variable (os.pathsep-separated)."""
    return [Path(p).expanduser() for p in os.environ.get(TASKS_PATH_VAR, "").split(os.pathsep) if p.strip()]


def task_dirs() -> list[Path]:
    """Every folder a task name is looked up in: the shipped `envs/`, then the user's folders."""
    return [ENVS_DIR, *user_task_dirs()]


class ScorerRef(BaseModel):
    """A trusted episode scorer: `module:Class` in the spec's folder, plus keyword arguments."""

    model_config = ConfigDict(extra="forbid")
    scorer: str = Field(
        description="`module:Class`, module resolved next to the spec file (e.g. `scorers:ForwardProgress`)."
    )
    kwargs: dict[str, Any] = Field(default_factory=dict, description="Keyword arguments for the scorer's constructor.")
    floor: str | None = Field(
        None,
        min_length=10,
        description="Why random, idle and held actions all score the same (e.g. 'an object they never touch"
        " stays at 0'): said here, the task check does not flag the scorer as blind to the policy.",
    )

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
    n_envs: int = Field(1, ge=1, le=64, description="Train envs stepped in turn in the training worker.")
    backend: str = Field("sb3", pattern=r"^[a-z][a-z0-9_]*$", description="rewardsmith.workers.backends.BACKENDS")
    hyperparams: dict[str, Any] = Field(default_factory=dict, description="Passed to the SB3 algorithm constructor.")
    policy_kwargs: dict[str, Any] = Field(
        default_factory=dict,
        description='e.g. {net_arch = [64, 64], activation_fn = "tanh"}; activation_fn by name, as RL Zoo\'s files.',
    )
    eval_freq: int = Field(10_000, gt=0, description="Evaluate every this many env steps.")
    eval_episodes: int = Field(5, ge=1)
    max_episode_steps: int | None = Field(None, gt=0, description="Override the env's time limit.")

    @field_validator("policy_kwargs")
    @classmethod
    def _named_activation(cls, v: dict[str, Any]) -> dict[str, Any]:
        name = v.get("activation_fn")
        if name is not None and name not in ACTIVATIONS:
            raise ValueError(f"activation_fn {name!r} is not one of {', '.join(ACTIVATIONS)}")
        return v

    def learning_fingerprint(self) -> str:
        """A short hash of the settings that change what a training learns or how it is scored (`LEARNING`): a
        calibration measured with other ones no longer describes this spec's search."""
        data = json.dumps(self.model_dump(include=set(LEARNING), mode="json"), sort_keys=True)
        return hashlib.sha256(data.encode()).hexdigest()[:16]

    def ppo_rollout(self) -> int | None:
        """Env steps per PPO update (SB3's `n_steps`, default 2,048, x `n_envs`); None for another algorithm."""
        return int(self.hyperparams.get("n_steps", 2048)) * self.n_envs if self.algo == "PPO" else None

    def sb3_policy_kwargs(self) -> dict[str, Any]:
        """`policy_kwargs` for SB3, with a named `activation_fn` resolved to its torch.nn class."""
        kwargs = dict(self.policy_kwargs)
        if "activation_fn" in kwargs:
            from torch import nn

            classes = {"leaky_relu": nn.LeakyReLU, "gelu": nn.GELU, "silu": nn.SiLU, "selu": nn.SELU}
            name = kwargs["activation_fn"]
            kwargs["activation_fn"] = classes.get(name) or getattr(nn, {"relu": "ReLU"}.get(name, name.capitalize()))
        return kwargs


LEARNING = ("algo", "n_envs", "hyperparams", "policy_kwargs", "eval_episodes", "max_episode_steps")
"""The `[train]` fields a calibration depends on besides the budget (the backend is recorded on its own)."""


class SearchDefaults(BaseModel):
    """Budgets for the designer-critic-analyzer loop."""

    model_config = ConfigDict(extra="forbid")
    iterations: int = Field(3, ge=1)
    samples: int = Field(4, ge=1, description="Reward candidates sampled per iteration (Eureka's K).")
    repair_rounds: int = Field(2, ge=0)
    final_seeds: int = Field(3, ge=1)
    first_rung: float | None = Field(
        None,
        gt=0,
        le=1,
        description="The default strategy's first rung, a fraction of the search budget (default: "
        "the task family's measured one, `rewardsmith.search.rung_evidence`).",
    )


class Calibration(BaseModel):
    """`[calibration]`: what `rewardsmith calibrate` measured for this spec (see `rewardsmith.search.calibration`):
    at the search budget, a good reward's, the stronger weak reference's and the random policy's trusted fitness
    as [mean, standard error] over seeds, and good's smallest lead in standard errors."""

    model_config = ConfigDict(extra="ignore")
    budget: int = Field(gt=0, description="The search budget (env steps) it was measured at.")
    first_rung: int = Field(0, ge=0, description="The default strategy's first-rung budget.")
    seeds: int = Field(0, ge=0)
    episodes: int | None = Field(
        None, ge=1, description="Evaluation episodes per training (unrecorded before round 28)."
    )
    good: list[float] = Field(default_factory=list, description="The example reward: [mean, se] over seeds.")
    weak: list[float] = Field(default_factory=list, description="The stronger weak reference: [mean, se].")
    weak_references: list[str] = Field(default_factory=list, description="The weak references trained (alive, effort).")
    random: list[float] = Field(default_factory=list, description="The random policy: [mean, se] over episodes.")
    margin_se: float | None = Field(None, description="Good's lead over the stronger of weak and random, in se.")
    first_rung_margin_se: float | None = None
    calibrated: bool = Field(False, description="Good leads by the required margin at the search budget.")
    smallest_budget: int | None = Field(None, description="The smallest budget measured that separates them.")
    wall_s: float = 0.0
    measured: str = ""
    reward_sha: str = Field(
        "", description="The measured reward file's fingerprint (`calibration.fingerprint`): edited since, it differs."
    )
    backend: str | None = Field(
        None, description="The training backend(s) it was measured on, when asked for one (`calibrate --backend`)."
    )
    train_sha: str = Field(
        "", description="`TrainDefaults.learning_fingerprint` when measured: other training settings since, it differs."
    )
    stale: str = Field("", exclude=True, description="Why the record no longer describes its spec (set on loading).")

    def current(self, search_budget: int) -> bool:
        """Whether the record was measured at this search budget with the spec's training settings."""
        return self.budget == search_budget and not self.stale

    def short_status(self, search_budget: int) -> str:
        """One or two words for the one-line task listing."""
        if not self.current(search_budget):
            return "stale calibration"
        margin = f" {se_words(self.margin_se)}" if self.margin_se is not None else ""
        return f"calibrated{margin}" if self.calibrated else f"needs GPU or long budget{margin}"

    def status(self, search_budget: int) -> str:
        """A few words for `rewardsmith tasks` and a run's output."""
        if self.stale:
            return f"calibrated {self.stale}: run `rewardsmith calibrate`"
        if self.budget != search_budget:
            return f"calibrated at {self.budget:,} steps, not at today's {search_budget:,}: run `rewardsmith calibrate`"
        margin = se_words(self.margin_se) if self.margin_se is not None else "?"
        margin += f" on {self.backend}" if self.backend else ""
        if self.calibrated:
            return f"calibrated ({margin} at {self.budget:,} steps)"
        if self.smallest_budget and self.smallest_budget > self.budget:
            return f"needs a longer budget ({self.smallest_budget:,} steps separate; {margin} at {self.budget:,})"
        if self.smallest_budget:  # a shorter budget separated (say the first rung), the search budget did not
            separate = f"{self.smallest_budget:,} steps separate"
            return f"not calibrated: {separate}, the search budget does not ({margin} at {self.budget:,})"
        return f"needs GPU or long budget ({margin} at {self.budget:,} steps)"

    def separates_at(self, budget: int) -> bool:
        """Whether training `budget` steps was shown to separate a good reward from a weak one: the search budget
        was calibrated and `budget` is at least that, or `budget` reaches a longer budget that separated. A
        shorter budget that separated says nothing about longer ones (the example can fall back, as hopper-hop's
        did between 200,000 and 400,000 steps). A stale record shows nothing."""
        if self.stale:
            return False
        if self.calibrated and self.budget <= budget:
            return True
        longer = self.smallest_budget if self.smallest_budget and self.smallest_budget > self.budget else None
        return longer is not None and longer <= budget


class TaskSpec(BaseModel):
    """One task: an environment, a behaviour described in words, and the trusted fitness for it."""

    model_config = ConfigDict(extra="forbid")
    name: str = Field(pattern=r"^[a-z0-9][a-z0-9_-]*$")
    env: str = Field(description="Gymnasium id (`HalfCheetah-v5`) or `module:Class` of an env shipped in `envs/`.")
    env_kwargs: dict[str, Any] = Field(default_factory=dict)
    imports: list[str] = Field(
        default_factory=list,
        description="Modules imported before the env is made, so that they register their ids (e.g. ['metaworld']).",
    )
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
    calibration: Calibration | None = Field(None, description="Written by `rewardsmith calibrate --write-spec`.")
    source: Path | None = Field(None, exclude=True, description="The TOML file this spec came from.")

    @model_validator(mode="after")
    def _stale_calibration(self) -> TaskSpec:
        """Mark a calibration measured with other training settings than the spec's now as stale."""
        cal = self.calibration
        if cal is not None and cal.train_sha and cal.train_sha != self.train.learning_fingerprint():
            cal.stale = "with other training settings than the spec's now"
        return self

    @property
    def fresh_calibration(self) -> Calibration | None:
        """The calibration record whose numbers describe this spec's learner: None when there is none or it is
        stale (measured with other training settings); its budget is the caller's to compare."""
        cal = self.calibration
        return cal if cal is not None and not cal.stale else None

    @property
    def folder(self) -> Path:
        """The folder that holds the spec, its scorer modules and any custom env."""
        return self.source.parent if self.source else ENVS_DIR

    @property
    def example_reward(self) -> Path | None:
        """The spec's hand-written example reward (`examples/<name with _>.py` beside the spec), if there is one."""
        path = self.folder / "examples" / (self.name.replace("-", "_") + ".py")
        return path if path.is_file() else None

    def calibration_note(self, budget: int) -> str | None:
        """What a run at `budget` steps per candidate should know about this task's calibration; None when the
        budget was shown to separate a good reward from a weak one (`rewardsmith calibrate`)."""
        cal = self.calibration
        if cal is not None and cal.separates_at(budget):
            return None
        if cal is None:
            return (
                f"{self.name}'s search budget is uncalibrated: nothing shows that {budget:,} steps tell a good reward "
                f"from a weak one; `{self.calibrate_command()}` measures whether they do"
            )
        fresh = self.fresh_calibration  # a stale record's smallest separating budget was another learner's
        if fresh is not None and fresh.smallest_budget and fresh.smallest_budget > fresh.budget:
            found = f"{fresh.smallest_budget:,} steps (not {budget:,}) separate a good reward from a weak one"
            return f"{self.name}: calibration found that {found}"
        return f"{self.name}: {cal.status(self.train.timesteps)}; at {budget:,} steps the ranking may be noise"

    def command_target(self) -> str:
        """How a command names this spec: by name where the name finds this file (`envs/`, REWARDSMITH_TASKS),
        else by path."""
        named = next((p.resolve() for d in task_dirs() if (p := d / f"{self.name}.toml").is_file()), None)
        return self.name if self.source is None or named == self.source else shlex.quote(_shortest(self.source))

    def calibrate_command(self, reward: Path | None = None) -> str:
        """The exact command that calibrates this spec and records it (`command_target`); with `--reward` for
        `reward` or where there is no example."""
        target = self.command_target()
        good = (
            f" --reward {shlex.quote(str(reward))}" if reward else "" if self.example_reward else " --reward REWARD.py"
        )
        return f"rewardsmith calibrate {target}{good} --write-spec"

    def calibration_status(self) -> str:
        """Whether this spec's search budget was shown to separate a good reward from a weak one."""
        if self.calibration is None:
            return "uncalibrated"
        return self.calibration.status(self.train.timesteps)

    @property
    def summary(self) -> str:
        """First line of the description."""
        return self.description.strip().splitlines()[0]


FAMILIES: tuple[tuple[str, str], ...] = (
    ("Meta-World", "Meta-World manipulation"),
    ("metaworld_fixed", "Meta-World manipulation"),
    ("Fetch", "Gymnasium-Robotics arms and hands"),
    ("Adroit", "Gymnasium-Robotics arms and hands"),
    ("HandManipulate", "Gymnasium-Robotics arms and hands"),
    ("BipedalWalker", "Box2D and classic control"),
    ("LunarLander", "Box2D and classic control"),
    ("MountainCar", "Box2D and classic control"),
    ("Pendulum", "Box2D and classic control"),
    ("CartPole", "Box2D and classic control"),
    ("Acrobot", "Box2D and classic control"),
)


LOCOMOTION = "MuJoCo locomotion and control"
FAMILY_ORDER = (LOCOMOTION, "Box2D and classic control", "Meta-World manipulation", "Gymnasium-Robotics arms and hands")


def _shortest(path: Path) -> str:
    """`path` relative to the working directory where it lies below it (what a user typed), else absolute."""
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def task_family(spec: TaskSpec) -> str:
    """The family a task's env belongs to, for grouped listings (MuJoCo locomotion and control by default)."""
    return next((family for prefix, family in FAMILIES if spec.env.startswith(prefix)), LOCOMOTION)


def _format_validation_error(path: Path, err: ValidationError) -> str:
    first = err.errors()[0]
    where = ".".join(str(p) for p in first["loc"]) or "(top level)"
    kind = "missing" if first["type"] == "missing" else first["msg"]
    return f"{path}: invalid task spec: field '{where}': {kind}"


TABLE_HEADER = re.compile(r"^\s*\[([\w.-]+)\]\s*(#.*)?$")
"""A TOML table's header line in a spec file, `[train]` (a comment after it allowed)."""


def table_span(lines: list[str], table: str) -> tuple[int, int] | None:
    """(header, end) line indices of `[table]` in a spec file's lines: from its header up to the next table's (or
    the end); None if it has none."""
    start = next((i for i, line in enumerate(lines) if (m := TABLE_HEADER.match(line)) and m.group(1) == table), None)
    if start is None:
        return None
    end = next((i for i in range(start + 1, len(lines)) if TABLE_HEADER.match(lines[i])), len(lines))
    return start, end


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


def list_tasks(folder: Path | None = None) -> list[TaskSpec]:
    """All task specs in a folder (default: `envs/` and the user's folders; a name's first spec wins), by name."""
    folders = [Path(folder)] if folder is not None else task_dirs()
    found: dict[str, TaskSpec] = {}
    for where in folders:
        for p in sorted(where.glob("*.toml")) if where.is_dir() else []:
            spec = read_task(p)
            found.setdefault(spec.name, spec)
    return sorted(found.values(), key=lambda s: s.name)


def load_task(name_or_path: str | Path) -> TaskSpec:
    """A spec by name (from `envs/`, then the folders in `REWARDSMITH_TASKS`) or by path to a `.toml` file."""
    text = str(name_or_path)
    if text.endswith(".toml") or "/" in text or Path(text).is_file():
        return read_task(Path(text))
    for folder in task_dirs():
        candidate = folder / f"{text}.toml"
        if candidate.is_file():
            return read_task(candidate)
    known = ", ".join(s.name for s in list_tasks()) or "none"
    where = ", ".join(str(d) for d in task_dirs())
    raise TaskSpecError(
        f"unknown task '{text}': not a file and not a spec in {where} (known: {known}); "
        f"add your own folders with {TASKS_PATH_VAR}=DIR{os.pathsep}DIR"
    )


QUIETED_NOTICES = ("gymnasium_robotics",)
"""Packages whose import prints a Farama notice we silence. gymnasium-robotics 1.4.2 prints to stderr, on every
import, that its Adroit v1 env rewards changed in 1.2.1 and to pin 1.2.0 "for v1 reproducibility": a Fetch user
would read it as advice to downgrade. It does not apply here: every fitness is the task's own scorer, the env's
reward reaches only `baseline` (human), and the pin (`robotics` extra: >=1.4,<1.5) keeps that reward one version."""


def _quiet_notices() -> None:
    """Drop the notices of `QUIETED_NOTICES` from `farama_notifications` before the packages read them."""
    try:
        from farama_notifications import notifications
    except ImportError:
        return
    for package in QUIETED_NOTICES:
        notifications.pop(package, None)


def import_registrations(spec: TaskSpec) -> None:
    """Import the spec's `imports` (modules that register third-party env ids), with a clear error if missing."""
    if spec.imports:
        _quiet_notices()
    for module in spec.imports:
        try:
            with _IMPORT_LOCK:
                importlib.import_module(module)
        except ImportError as e:
            hint = extra_hint(module) if module.split(".")[0] == (e.name or "").split(".")[0] else None
            raise TaskSpecError(
                f"{spec.source or spec.name}: imports: {hint}"
                if hint
                else f"{spec.source or spec.name}: imports: cannot import '{module}' ({e}); install it (pip install ...)"
            ) from None


_IMPORT_LOCK = threading.RLock()
"""Held while a module a spec names is first imported (its scorer, its `imports`, its env's entry point): a batch's
tasks do that on threads of one process, and two threads importing one package and its submodule at once can each
get it half-initialized (two classic-control tasks failed so: `cannot import name 'PendulumEnv' from partially
initialized module`)."""


MOVED_MODULES = {"rewardsmith.fitness": "rewardsmith.reward.fitness", "rewardsmith.state": "rewardsmith.reward.state"}
"""Modules of the public API that moved: scorers copied into older run folders import them by their old names."""
_MOVED_IMPORT = re.compile(
    rb"^(\s*(?:from|import)\s+)(" + b"|".join(re.escape(m.encode()) for m in MOVED_MODULES) + rb")(?=\s)", re.M
)


def rewrite_moved_imports(source: bytes) -> bytes:
    """`source` with every `from <moved module> import ...` (and `import <moved module> as ...`) naming the
    module's new home (`MOVED_MODULES`), so a trusted module copied into an older run folder still imports."""
    return _MOVED_IMPORT.sub(lambda m: m.group(1) + MOVED_MODULES[m.group(2).decode()].encode(), source)


class SourceOnlyLoader(importlib.machinery.SourceFileLoader):
    """Compiles the file's source on every import: never reads or writes a `__pycache__` beside it, so a `.pyc`
    planted in a run folder cannot stand in for the trusted scorer (and run folders get no cache clutter). Imports
    of moved modules are rewritten on load (`rewrite_moved_imports`)."""

    def get_code(self, fullname: str) -> Any:
        source = rewrite_moved_imports(bytes(self.get_data(self.path)))
        return compile(source, self.path, "exec", dont_inherit=True)


def import_from_folder(folder: Path, ref: str) -> Any:
    """Import `module:Attr` where `module` is a `.py` file in `folder` (trusted code: specs, scorers, envs),
    always from its source (`SourceOnlyLoader`)."""
    module_name, attr = ref.split(":")
    file = Path(folder) / (module_name.replace(".", "/") + ".py")
    if not file.is_file():
        raise TaskSpecError(f"{file}: module '{module_name}' (from '{ref}') not found")
    qualified = f"rewardsmith_envs_{abs(hash(str(file.resolve())))}_{module_name.replace('.', '_')}"
    with _IMPORT_LOCK:  # a batch's tasks load the same scorer module from several threads at once
        module = sys.modules.get(qualified)
        if module is None:
            specification = importlib.util.spec_from_file_location(
                qualified, file, loader=SourceOnlyLoader(qualified, str(file))
            )
            assert specification and specification.loader
            module = importlib.util.module_from_spec(specification)
            sys.modules[qualified] = module  # while the lock is held, no other thread sees it half-run
            try:
                specification.loader.exec_module(module)
            except BaseException:
                del sys.modules[qualified]
                raise
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
    import_registrations(spec)
    try:
        if ":" in spec.env:
            env_cls = import_from_folder(spec.folder, spec.env)
            limit = kwargs.pop("max_episode_steps", None) or 1000
            return gym.wrappers.TimeLimit(env_cls(**kwargs), max_episode_steps=limit)
        entry = gym.spec(spec.env).entry_point
        if isinstance(entry, str) and ":" in entry:
            with _IMPORT_LOCK:
                importlib.import_module(entry.split(":")[0])
        env = gym.make(spec.env, **kwargs)
    except gym.error.Error as e:
        raise TaskSpecError(f"{where}: cannot make env '{spec.env}': {e}") from None
    except TypeError as e:
        raise EnvKwargsError(f"{where}: bad env_kwargs for '{spec.env}': {e}") from None
    _remove_maze_file(env)
    return env


_MAZE_FILE = re.compile(r"ant_maze\d[\d.]*\.xml")


def _remove_maze_file(env) -> None:
    """gymnasium-robotics' maze envs (PointMaze, AntMaze) write their generated model to the temp folder
    (`ant_maze<time>.xml`, in `tmp_xml_file_path`) and never remove it: a file per env built, hundreds in a run. The
    model is loaded by then, so the file goes (only a time-stamped one: the older, fixed `ant_maze.xml` is shared)."""
    found = getattr(env.unwrapped, "tmp_xml_file_path", None)
    path = Path(found) if isinstance(found, str) else None
    if path is not None and _MAZE_FILE.fullmatch(path.name) and path.parent == Path(tempfile.gettempdir()):
        try:
            path.unlink(missing_ok=True)
        except OSError:
            pass  # not ours to remove after all


def make_scorer(spec: TaskSpec):
    """A fresh instance of the spec's trusted episode scorer."""
    scorer_cls = import_from_folder(spec.folder, spec.fitness.scorer)
    try:
        return scorer_cls(**spec.fitness.kwargs)
    except TypeError as e:
        raise TaskSpecError(f"{spec.source}: bad fitness kwargs for {spec.fitness.scorer}: {e}") from None
