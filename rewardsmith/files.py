"""Crash-safe file helpers: atomic JSON writes, append-only JSON lines, tolerant readers."""

from __future__ import annotations

import json
import os
import stat
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
    records: list[dict[str, Any]] = []
    problems: list[str] = []
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


MAX_READ_BYTES = 1_000_000
MAX_JSON_DEPTH = 64


def read_capped(path: Path, max_bytes: int = MAX_READ_BYTES) -> bytes | None:
    """The bytes of a file another process may have planted: None unless it is a regular file (no symlink
    followed, a FIFO or device never blocks) of at most `max_bytes`."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > max_bytes:
            return None
        chunks, size = [], 0
        while chunk := os.read(fd, min(1 << 20, max_bytes + 1 - size)):
            chunks.append(chunk)
            size += len(chunk)
            if size > max_bytes:
                return None
        return b"".join(chunks)
    except OSError:
        return None
    finally:
        os.close(fd)


def read_json(path: Path, max_bytes: int = MAX_READ_BYTES, max_depth: int = MAX_JSON_DEPTH) -> Any:
    """A JSON file read as hostile input (see `read_capped`): None if missing, oversized, nested deeper than
    `max_depth`, or not JSON. Every parse error is caught."""
    return parse_json(read_capped(path, max_bytes), max_depth)


def parse_json(data: bytes | None, max_depth: int = MAX_JSON_DEPTH) -> Any:
    """JSON bytes read as hostile input: None for None, nesting deeper than `max_depth`, or anything not JSON."""
    if data is None or json_depth(data) > max_depth:
        return None
    try:
        return json.loads(data.decode("utf-8"))
    except Exception:  # noqa: BLE001 - malformed input of any kind is "unreadable"
        return None


def json_depth(data: bytes) -> int:
    """The deepest bracket nesting of a JSON text (brackets inside strings are not counted)."""
    import re

    import numpy as np

    stripped = re.sub(rb'"(?:[^"\\]|\\.)*"', b"", data)
    codes = np.frombuffer(stripped, dtype=np.uint8)
    opens = (codes == ord("[")) | (codes == ord("{"))
    closes = (codes == ord("]")) | (codes == ord("}"))
    depth = np.cumsum(opens.astype(np.int64) - closes.astype(np.int64))
    return int(depth.max()) if depth.size else 0


def remove_tree(path: Path, max_open: int = 32) -> None:
    """Delete a file or folder tree another process may have planted, without recursion and without path
    lengths: every step is relative to an open folder, symlinks are removed, never followed, and folders
    deeper than `max_open` are first moved up to the top, so a 3,000-deep tree exhausts neither the stack,
    the open-file limit nor PATH_MAX. What cannot be removed (no permission) is left in place."""
    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        top = os.open(path, flags)
    except OSError:
        if os.path.lexists(path) and not (os.path.isdir(path) and not os.path.islink(path)):
            Path(path).unlink(missing_ok=True)
        return
    stack: list[tuple[int, str]] = [(top, "")]
    stuck: set[tuple[int, int]] = set()  # folders entered once already that could not be emptied
    moved = 0
    while stack:
        fd = stack[-1][0]
        child = None
        try:
            entries = list(os.scandir(fd))
        except OSError:
            entries = []
        for entry in entries:
            try:
                if not entry.is_dir(follow_symlinks=False):
                    os.unlink(entry.name, dir_fd=fd)
                    continue
                key = (entry.inode(), os.stat(fd).st_dev)
                if key in stuck:
                    continue
                if len(stack) < max_open:
                    stuck.add(key)
                    child = (os.open(entry.name, flags, dir_fd=fd), entry.name)
                    break
                moved += 1
                os.rename(entry.name, f".removing-{moved}", src_dir_fd=fd, dst_dir_fd=top)
            except OSError:
                continue
        if child is not None:
            stack.append(child)
            continue
        fd, name = stack.pop()
        os.close(fd)
        if stack:
            try:
                os.rmdir(name, dir_fd=stack[-1][0])
            except OSError:
                pass
    try:
        os.rmdir(path)
    except OSError:
        pass
