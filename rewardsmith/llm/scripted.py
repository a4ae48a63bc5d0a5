"""The scripted model: answers read in order from a JSONL file, for tests, demos and benchmarks.

Format, one JSON object per line (blank lines are skipped):

    {"role": "designer" | "critic" | "analyzer" | "any", "content": "..."}

A request for stage R takes the first unused line whose role is R or "any". A request whose own role is
"any" (the loopback server's default when no role header is sent) takes the first unused line of any role.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from pathlib import Path

from rewardsmith.errors import LLMError, ScriptExhaustedError
from rewardsmith.files import write_json_atomic
from rewardsmith.llm.base import ROLES, Completion, Model

SCRIPT_ROLES = (*ROLES, "any")


@dataclass(frozen=True)
class ScriptLine:
    """One answer of a script, with its 1-based line number in the file."""

    number: int
    role: str
    content: str


def read_script(path: Path) -> list[ScriptLine]:
    """Parse a script file; raise `LLMError` naming the file and line of the first malformed line."""
    try:
        raw_lines = Path(path).read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise LLMError(f"cannot read script {path}: {exc.strerror or exc}") from exc
    lines = []
    for number, raw in enumerate(raw_lines, start=1):
        if not raw.strip():
            continue
        where = f"{path}:{number}"
        try:
            obj = json.loads(raw)
        except ValueError as exc:
            raise LLMError(f"{where}: not valid JSON ({exc}); each line must be one JSON object") from exc
        if not isinstance(obj, dict) or not isinstance(obj.get("content"), str):
            raise LLMError(f'{where}: expected {{"role": ..., "content": "<text>"}}; got {raw[:80]!r}')
        role = obj.get("role", "any")
        if role not in SCRIPT_ROLES:
            raise LLMError(f"{where}: role must be one of {', '.join(SCRIPT_ROLES)}; got {role!r}")
        lines.append(ScriptLine(number, role, obj["content"]))
    return lines


class Script:
    """A script being consumed. Thread-safe; with `state_path`, consumed lines survive a restart."""

    def __init__(self, path: Path, state_path: Path | None = None) -> None:
        self.path = Path(path)
        self.lines = read_script(self.path)
        self.state_path = state_path
        self._lock = threading.Lock()
        self._state: dict[str, dict[str, list[int]]] = {"consumed": {}}
        if state_path is not None and state_path.exists():
            try:
                self._state = json.loads(state_path.read_text(encoding="utf-8"))
            except (OSError, ValueError) as exc:
                raise LLMError(f"cannot read scripted state {state_path}: {exc}; delete it to restart") from exc
        self._used = set(self._state.setdefault("consumed", {}).get(self._state_key, []))

    @property
    def _state_key(self) -> str:
        return str(self.path.resolve())

    def take(self, role: str) -> ScriptLine:
        """Consume and return the next line for `role`; raise `ScriptExhaustedError` when none is left."""
        with self._lock:
            for index, line in enumerate(self.lines):
                if index not in self._used and (role == "any" or line.role in (role, "any")):
                    self._used.add(index)
                    self._save()
                    return line
        left = sum(1 for i in range(len(self.lines)) if i not in self._used)
        raise ScriptExhaustedError(
            f"script {self.path} has no line left for role {role!r} ({left} unused line(s) for other "
            f'roles); add a line like {{"role": "{role}", "content": "..."}} or {{"role": "any", ...}}'
        )

    def _save(self) -> None:
        if self.state_path is not None:
            self._state["consumed"][self._state_key] = sorted(self._used)
            write_json_atomic(self.state_path, self._state)


class ScriptedModel(Model):
    """`scripted:PATH`: replays a JSONL script. Uses the run-folder cache, never the user-level one."""

    kind = "scripted"
    uses_user_cache = False

    def __init__(self, path: Path, *, run_dir: Path | None = None) -> None:
        super().__init__(f"scripted:{path}", run_dir=run_dir)
        state_path = self.run_dir / "llm" / "scripted_state.json" if self.run_dir is not None else None
        self.script = Script(Path(path), state_path)

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
        line = self.script.take(role)
        prompt_chars = sum(len(str(m.get("content", ""))) for m in messages)
        return Completion(
            text=line.content,
            prompt_tokens=prompt_chars // 4,
            completion_tokens=len(line.content) // 4,
            details={"script": str(self.script.path), "line": line.number},
        )
