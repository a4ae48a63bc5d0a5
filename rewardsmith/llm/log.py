"""The call log: one JSON file per model call under `run_dir/llm/`, numbered `0001_designer.json`, ..."""

from __future__ import annotations

import re
import threading
from pathlib import Path
from typing import Any

from rewardsmith.files import write_json_atomic

_NUMBERED = re.compile(r"^(\d+)_[A-Za-z0-9_-]+\.json$")


class CallLog:
    """Numbers and writes call records. Thread-safe; a resumed run continues after the highest number."""

    def __init__(self, directory: Path) -> None:
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._last = max(
            (int(m.group(1)) for p in self.directory.iterdir() if (m := _NUMBERED.match(p.name))),
            default=0,
        )

    def write(self, role: str, record: dict[str, Any]) -> Path:
        """Save one call record as `NNNN_<role>.json` and return its path."""
        with self._lock:
            self._last += 1
            number = self._last
        path = self.directory / f"{number:04d}_{role}.json"
        write_json_atomic(path, {"number": number, **record})
        return path
