"""Crash-safe file helpers: atomic JSON writes, append-only JSON lines, tolerant readers."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any


def write_bytes_atomic(path: Path, content: bytes) -> None:
    """Write a file through a unique temporary file and `os.replace`: readers never see it half-written,
    even after a kill -9, and concurrent writers (threads or processes) never share a temporary file."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(content)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_json_atomic(path: Path, data: Any) -> None:
    """Write JSON atomically (see `write_bytes_atomic`)."""
    write_bytes_atomic(path, (json.dumps(data, indent=2, ensure_ascii=False, default=str) + "\n").encode("utf-8"))


def append_jsonl(path: Path, record: dict[str, Any]) -> None:
    """Append one JSON line (a single write, flushed)."""
    with open(path, "a", encoding="utf-8") as f:
        f.write(json.dumps(record, default=str) + "\n")


def read_jsonl(path: Path) -> tuple[list[dict[str, Any]], list[str]]:
    """Records of a JSON-lines file and a list of problems (corrupt or truncated lines are skipped)."""
    records, problems = [], []
    if not Path(path).is_file():
        return records, [f"{path}: missing"]
    for number, line in enumerate(Path(path).read_text(encoding="utf-8", errors="replace").splitlines(), 1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as e:
            problems.append(f"{path}:{number}: corrupt line skipped ({e.msg})")
            continue
        if isinstance(value, dict):
            records.append(value)
        else:
            problems.append(f"{path}:{number}: not a JSON object, skipped")
    return records, problems
