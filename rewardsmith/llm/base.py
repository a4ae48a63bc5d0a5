"""The model interface: `Model.complete` with caching and per-call logging around a backend."""

from __future__ import annotations

import hashlib
import time
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, ClassVar

from rewardsmith.errors import LLMError
from rewardsmith.llm.cache import ResponseCache, default_cache_dir, request_key
from rewardsmith.llm.code_identity import fingerprint
from rewardsmith.llm.log import CallLog

ROLES = ("designer", "critic", "analyzer")


@dataclass
class LLMResponse:
    """One answer from a model, with what it cost."""

    text: str
    model: str
    role: str
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float
    cached: bool
    latency_s: float


@dataclass
class Completion:
    """What a backend returns for one uncached request."""

    text: str
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float = 0.0
    details: dict[str, Any] = field(default_factory=dict)
    """Backend-specific facts worth keeping in the call log (e.g. the script line that answered)."""


class Model(ABC):
    """A chat model. Subclasses implement `_generate`; this class adds the cache and the log.

    Thread-safe: the designer calls `complete` from several threads at once.
    """

    kind: ClassVar[str]
    """"api", "local" or "scripted"."""
    uses_user_cache: ClassVar[bool] = True
    """Whether answers may come from (and go to) the user-level cache shared between runs."""
    variant: ClassVar[str] = ""
    """Part of the cache key; changes whenever the same request would get another answer (a new local prompt)."""
    avoids_repeats: ClassVar[bool] = False
    """Whether the backend reads `avoid` (code the run already tried) and never hands it back: then the code's
    fingerprints are part of the request and its cache key, and the designer asks its samples one after another,
    each one told the codes of those before it."""

    def __init__(
        self,
        name: str,
        *,
        api_base: str | None = None,
        run_dir: Path | None = None,
        cache_dir: Path | None = None,
        use_cache: bool | None = None,
    ) -> None:
        """`use_cache`: None, the run's own cache only; True, also the user-level cache shared between runs
        (`cache_dir`); False, no cache at all."""
        self.name = name
        self.api_base = api_base
        self.run_dir = Path(run_dir) if run_dir is not None else None
        cache_dirs = []
        if self.run_dir is not None and use_cache is not False:
            cache_dirs.append(self.run_dir / "llm" / "cache")
        if use_cache and self.uses_user_cache:
            cache_dirs.append(Path(cache_dir) if cache_dir is not None else default_cache_dir())
        self._cache = ResponseCache(cache_dirs) if cache_dirs else None
        self._log = CallLog(self.run_dir / "llm") if self.run_dir is not None else None

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"

    def complete(
        self,
        messages: list[dict[str, str]],
        *,
        role: str,
        sample: int = 0,
        temperature: float = 1.0,
        max_tokens: int = 2048,
        avoid: Sequence[str] = (),
    ) -> LLMResponse:
        """Answer chat `messages` for a loop stage (`role`), from the cache when this exact request was seen.

        `sample` tells apart the parallel samples of one prompt; it is part of the cache key, so asking
        again with the same sample returns the same answer. `avoid`: reward code the run already tried (every
        earlier candidate's), which a backend that `avoids_repeats` does not hand back; others ignore it. Raises
        `LLMError` when the model fails.
        """
        if role not in ROLES:
            raise ValueError(f"role must be one of {', '.join(ROLES)}; got {role!r}")
        request: dict[str, Any] = {
            "model": self.name,
            "api_base": self.api_base,
            "role": role,
            "messages": messages,
            "temperature": temperature,
            "max_tokens": max_tokens,
            "sample": sample,
        }
        if self.variant:
            request["variant"] = self.variant
        avoid = list(avoid) if self.avoids_repeats else []
        if avoid:
            request["avoid"] = sorted({fingerprint(code) for code in avoid})
        key = request_key(request)
        start = time.perf_counter()
        entry = self._cache.get(key) if self._cache is not None else None
        if entry is not None:
            response = LLMResponse(
                text=entry["text"],
                model=self.name,
                role=role,
                prompt_tokens=entry["prompt_tokens"],
                completion_tokens=entry["completion_tokens"],
                cost_usd=0.0,
                cached=True,
                latency_s=time.perf_counter() - start,
            )
            details: dict[str, Any] = {}
        else:
            try:
                out = self._generate(
                    messages, role=role, sample=sample, temperature=temperature, max_tokens=max_tokens, avoid=avoid
                )
            except LLMError as exc:
                self._record(request, key, latency_s=time.perf_counter() - start, error=str(exc))
                raise
            response = LLMResponse(
                text=out.text,
                model=self.name,
                role=role,
                prompt_tokens=out.prompt_tokens,
                completion_tokens=out.completion_tokens,
                cost_usd=out.cost_usd,
                cached=False,
                latency_s=time.perf_counter() - start,
            )
            details = out.details
            if self._cache is not None:
                self._cache.put(key, {"request": request, **asdict(out)})
        self._record(request, key, response=response, details=details)
        return response

    @abstractmethod
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
        """Ask the backend (`avoid`: the run's tried code, empty unless it `avoids_repeats`); raise `LLMError` (or
        a subclass) with an actionable message on failure."""

    def _record(
        self,
        request: dict[str, Any],
        key: str,
        *,
        latency_s: float | None = None,
        response: LLMResponse | None = None,
        details: dict[str, Any] | None = None,
        error: str | None = None,
    ) -> None:
        if self._log is None:
            return
        record: dict[str, Any] = {
            "time": datetime.now(UTC).isoformat(timespec="seconds"),
            "kind": self.kind,
            **request,
            "messages": [{**m, "content": logged_content(m.get("content"))} for m in request["messages"]],
            "cache_key": key,
        }
        if response is not None:
            record.update(
                response=response.text,
                prompt_tokens=response.prompt_tokens,
                completion_tokens=response.completion_tokens,
                cost_usd=response.cost_usd,
                latency_s=round(response.latency_s, 4),
                cached=response.cached,
                error=None,
            )
        else:
            record.update(response=None, latency_s=round(latency_s or 0.0, 4), cached=False, error=error)
        if details:
            record["details"] = details
        self._log.write(request["role"], record)


def logged_content(content: Any) -> Any:
    """A message content as the call log keeps it: an image part's data replaced by its size and SHA-256 (the
    frames themselves are in the candidate's `visual/` folder), text as it is."""
    if not isinstance(content, list):
        return content
    out = []
    for part in content:
        url = part.get("image_url", {}).get("url", "") if isinstance(part, dict) else ""
        if url.startswith("data:"):
            data = url.split(",", 1)[-1].encode()
            digest = hashlib.sha256(data).hexdigest()[:16]
            part = {"type": "image_url", "image_url": {"url": f"(image, {len(data):,} base64 bytes, sha256 {digest})"}}
        out.append(part)
    return out
