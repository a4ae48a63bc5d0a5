"""Real models through litellm (OpenAI, Anthropic, any OpenAI-compatible server), with bounded retries."""

from __future__ import annotations

import os
import random
import time
from pathlib import Path
from types import ModuleType

from rewardsmith.errors import LLMError
from rewardsmith.llm.base import Completion, Model

ROLE_HEADER = "X-Rewardsmith-Role"
_MAX_DELAY_S = 60.0


def _env_number(name: str, default: float) -> float:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    try:
        return float(value)
    except ValueError:
        raise LLMError(f"environment variable {name}={value!r} is not a number; unset it or give e.g. 2") from None


def _import_litellm() -> ModuleType:
    # Use the cost map bundled with litellm instead of fetching it from the internet at import time.
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm

    litellm.suppress_debug_info = True
    return litellm


_AUTH_WORDS = ("missing credentials", "api_key", "api key", "unauthorized", "authentication", "permission denied")


KNOWN_KEYS = {
    "openai/": "OPENAI_API_KEY",
    "gpt-": "OPENAI_API_KEY",
    "anthropic/": "ANTHROPIC_API_KEY",
    "claude-": "ANTHROPIC_API_KEY",
    "gemini/": "GEMINI_API_KEY",
    "deepseek/": "DEEPSEEK_API_KEY",
    "mistral/": "MISTRAL_API_KEY",
    "groq/": "GROQ_API_KEY",
}
"""Key variables of common providers by model-name prefix: a missing one is named without importing litellm
(seconds on a busy machine); other names ask litellm."""


def missing_keys(name: str, api_base: str | None) -> list[str]:
    """The environment variables litellm needs for model `name` and does not find (none when `api_base` is
    given: a self-hosted server usually needs no key)."""
    if api_base:
        return []
    known = next((key for prefix, key in KNOWN_KEYS.items() if name.startswith(prefix)), None)
    if known and not os.environ.get(known, "").strip():
        return [known]
    check = _import_litellm().validate_environment(model=name)
    return [] if check.get("keys_in_environment") else list(check.get("missing_keys") or [])


def require_known_provider(name: str, api_base: str | None) -> None:
    """LLMError where litellm cannot tell which provider serves `name` (a typo such as "gpt4o", or a served model
    named without its "openai/" prefix): its first call would fail the same way, after the run folder was made."""
    if name.startswith(tuple(KNOWN_KEYS)):
        return
    litellm = _import_litellm()
    try:
        litellm.get_llm_provider(model=name, api_base=api_base)
    except Exception:  # noqa: BLE001 - litellm raises its BadRequestError (and others) for an unknown one
        raise LLMError(
            f"model {name}: litellm knows no provider for it; name it as litellm does, e.g. "
            "gpt-4o-mini, anthropic/claude-sonnet-4-5, ollama/llama3, or openai/<served-name> with --api-base "
            "(--model local is the built-in offline model)"
        ) from None


def require_credentials(name: str, api_base: str | None) -> None:
    """LLMError naming an unknown provider or the missing key, before any call is made."""
    require_known_provider(name, api_base)
    if keys := missing_keys(name, api_base):
        raise LLMError(
            f"model {name} needs {' or '.join(keys)}: set {keys[-1] if len(keys) > 1 else keys[0]} "
            "or pass --model (e.g. --model local, the built-in offline model)"
        )


def _is_auth_error(litellm: ModuleType, exc: Exception) -> bool:
    if isinstance(exc, (litellm.AuthenticationError, litellm.PermissionDeniedError)):
        return True
    return getattr(exc, "status_code", None) in (401, 403) or any(w in str(exc).lower() for w in _AUTH_WORDS)


def _is_retryable(litellm: ModuleType, exc: Exception) -> bool:
    if _is_auth_error(litellm, exc):
        return False  # a bad or missing key does not heal by waiting
    transient = (
        litellm.RateLimitError,
        litellm.Timeout,
        litellm.APIConnectionError,
        litellm.ServiceUnavailableError,
        litellm.InternalServerError,
        litellm.BadGatewayError,
    )
    if isinstance(exc, transient):
        return True
    status = getattr(exc, "status_code", None)
    return isinstance(status, int) and (status in (408, 429) or status >= 500)


def _short(exc: Exception, limit: int = 300) -> str:
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text[:limit]}{'...' if len(text) > limit else ''}"


class LiteLLMModel(Model):
    """Any model litellm knows: `gpt-4o-mini`, `anthropic/...`, or `openai/<name>` with `api_base`.

    Transient failures (rate limits, timeouts, connection errors, 5xx) are retried with exponential
    backoff: `attempts` tries in all (env `REWARDSMITH_LLM_ATTEMPTS`, default 5), waiting
    `backoff_s * 2**i` plus jitter between them (env `REWARDSMITH_LLM_BACKOFF_S`, default 2 s).
    Other errors (bad key, bad request, unknown model) fail at once; a missing key fails in the constructor,
    before any call. Each request carries the loop stage
    in the `X-Rewardsmith-Role` header.
    """

    kind = "api"

    def __init__(
        self,
        name: str,
        *,
        api_base: str | None = None,
        run_dir: Path | None = None,
        cache_dir: Path | None = None,
        use_cache: bool | None = None,
        attempts: int | None = None,
        backoff_s: float | None = None,
        timeout_s: float | None = None,
    ) -> None:
        require_credentials(name, api_base)
        super().__init__(name, api_base=api_base, run_dir=run_dir, cache_dir=cache_dir, use_cache=use_cache)
        # A self-hosted OpenAI-compatible server (vLLM, Ollama) usually takes any key; litellm insists on one.
        self._api_key = "no-key" if api_base and not os.environ.get("OPENAI_API_KEY") else None
        self.attempts = max(1, int(attempts if attempts is not None else _env_number("REWARDSMITH_LLM_ATTEMPTS", 5)))
        self.backoff_s = backoff_s if backoff_s is not None else _env_number("REWARDSMITH_LLM_BACKOFF_S", 2.0)
        self.timeout_s = timeout_s if timeout_s is not None else _env_number("REWARDSMITH_LLM_TIMEOUT_S", 120.0)

    def _where(self) -> str:
        return f"{self.name} at {self.api_base}" if self.api_base else self.name

    def _generate(
        self,
        messages: list[dict[str, str]],
        *,
        role: str,
        sample: int,
        temperature: float,
        max_tokens: int,
        avoid: list[str],
    ) -> Completion:
        litellm = _import_litellm()
        for attempt in range(1, self.attempts + 1):
            try:
                response = litellm.completion(
                    model=self.name,
                    messages=messages,
                    api_base=self.api_base,
                    api_key=self._api_key,
                    temperature=temperature,
                    max_tokens=max_tokens,
                    timeout=self.timeout_s,
                    extra_headers={ROLE_HEADER: role},
                    drop_params=True,  # e.g. reasoning models that only accept temperature=1
                    max_retries=0,  # retries are ours, with backoff and logging
                )
                break
            except Exception as exc:  # litellm maps every provider error onto its exception classes
                if _is_auth_error(litellm, exc):
                    raise LLMError(
                        f"provider {self._where()} refused the credentials ({_short(exc)}); check the API key "
                        "environment variable or pass --model"
                    ) from exc
                if not _is_retryable(litellm, exc):
                    raise LLMError(
                        f"provider {self._where()} rejected the request ({_short(exc)}); check the model "
                        "name, the API key environment variable and --api-base"
                    ) from exc
                if attempt == self.attempts:
                    raise LLMError(
                        f"provider {self._where()} unreachable after {self.attempts} attempts: {_short(exc)}"
                    ) from exc
                delay = min(_MAX_DELAY_S, self.backoff_s * 2 ** (attempt - 1)) * random.uniform(1.0, 1.25)
                time.sleep(delay)
        text = response.choices[0].message.content or ""
        usage = getattr(response, "usage", None)
        try:
            cost = float(litellm.completion_cost(completion_response=response) or 0.0)
        except Exception:  # noqa: BLE001 - unknown model or server: litellm has no price for it
            cost = 0.0
        return Completion(
            text=text,
            prompt_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
            completion_tokens=int(getattr(usage, "completion_tokens", 0) or 0),
            cost_usd=cost,
            details={"attempts": attempt, "finish_reason": response.choices[0].finish_reason},
        )
