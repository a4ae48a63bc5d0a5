"""The error hierarchy. Errors become one-line CLI messages (exit 2) only at the CLI boundary."""

from __future__ import annotations


class RewardsmithError(Exception):
    """Base class: a problem the user can act on. The message says what, where and how to fix it."""


class TaskSpecError(RewardsmithError):
    """A task spec is missing, malformed or names something that does not exist."""


class RewardFileError(RewardsmithError):
    """A reward file breaks the contract: syntax, missing `compute_reward`, signature, or results."""


class ExtractionError(RewardFileError):
    """An LLM reply holds no usable reward code: none at all, truncated, broken, or the function is missing."""


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
