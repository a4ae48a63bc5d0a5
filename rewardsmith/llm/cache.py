"""The response cache: answers keyed by the full request, kept in the run folder and in a user-level folder."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from rewardsmith.files import write_json_atomic


def default_cache_dir() -> Path:
    """The user-level cache folder: `$XDG_CACHE_HOME/rewardsmith/llm` or `~/.cache/rewardsmith/llm`."""
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "rewardsmith" / "llm"


def request_key(request: dict[str, Any]) -> str:
    """A stable hash of a request (model, api_base, messages, temperature, max_tokens, sample)."""
    canonical = json.dumps(request, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


class ResponseCache:
    """Looks a request up in several folders in order; stores answers in all of them.

    The first folder is the run's own (`run_dir/llm/cache`), so a resumed run never pays twice even when
    the user-level cache is off or was cleared. A hit found only in a later folder is copied into the
    earlier ones.
    """

    def __init__(self, directories: list[Path]) -> None:
        self.directories = [Path(d) for d in directories]

    def get(self, key: str) -> dict[str, Any] | None:
        """The stored entry for `key`, or None. Unreadable entries count as misses."""
        for i, directory in enumerate(self.directories):
            path = directory / f"{key}.json"
            try:
                entry = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue
            for earlier in self.directories[:i]:
                write_json_atomic(earlier / f"{key}.json", entry)
            return entry
        return None

    def put(self, key: str, entry: dict[str, Any]) -> None:
        """Store `entry` under `key` in every folder."""
        for directory in self.directories:
            write_json_atomic(directory / f"{key}.json", entry)
