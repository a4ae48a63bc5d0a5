"""Crash-safe file helpers: atomic JSON writes, append-only JSON lines, and readers of files another process may
have written: capped in bytes, lines, line length, nesting, component names and their number (the one place for
every cap on a worker's output)."""

from __future__ import annotations

import json
import math
import os
import re
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


def read_jsonl(
    path: Path,
    *,
    max_bytes: int | None = None,
    max_lines: int | None = None,
    max_line_bytes: int | None = None,
) -> tuple[list[dict[str, Any]], list[str]]:
    """Records of a JSON-lines file and a list of problems (corrupt or truncated lines are skipped). A file a worker
    wrote is read capped (`MAX_JSONL_BYTES`, `MAX_JSONL_LINES`, `MAX_LINE_BYTES`, the defaults): only its head is
    read, longer lines are skipped, and each cut is a problem; no symlink is followed."""
    data, cut = read_head(path, MAX_JSONL_BYTES if max_bytes is None else max_bytes)
    if data is None:
        return [], [f"{path}: missing"]
    records, problems = parse_jsonl(data, path, max_lines=max_lines, max_line_bytes=max_line_bytes)
    if cut:
        problems.append(
            f"{path}: larger than {MAX_JSONL_BYTES if max_bytes is None else max_bytes:,} bytes, the rest skipped"
        )
    return records, problems


def parse_jsonl(
    data: bytes, path: Path, *, max_lines: int | None = None, max_line_bytes: int | None = None
) -> tuple[list[dict[str, Any]], list[str]]:
    """The JSON objects of JSON-lines bytes (see `read_jsonl` for the caps) and the problems met."""
    max_lines = MAX_JSONL_LINES if max_lines is None else max_lines
    max_line_bytes = MAX_LINE_BYTES if max_line_bytes is None else max_line_bytes
    records: list[dict[str, Any]] = []
    problems: list[str] = []
    for number, line in enumerate(data.split(b"\n"), 1):
        if not line.strip():
            continue
        if len(records) >= max_lines:
            problems.append(f"{path}: more than {max_lines:,} lines, the rest skipped")
            break
        if len(line) > max_line_bytes:
            problems.append(f"{path}:{number}: line longer than {max_line_bytes:,} bytes skipped")
            continue
        try:
            value = json.loads(line.decode("utf-8", errors="replace"))
        except json.JSONDecodeError as e:
            problems.append(f"{path}:{number}: corrupt line skipped ({e.msg})")
            continue
        except RecursionError:
            problems.append(f"{path}:{number}: nested too deeply, skipped")
            continue
        if isinstance(value, dict):
            records.append(value)
        else:
            problems.append(f"{path}:{number}: not a JSON object, skipped")
    return records, problems


def read_head(path: Path, max_bytes: int) -> tuple[bytes | None, bool]:
    """The first `max_bytes` of a regular file (no symlink followed, a FIFO never blocks) and whether there was
    more; (None, False) if it is missing or not a regular file."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None, False
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None, False
        chunks, size = [], 0
        while size <= max_bytes and (chunk := os.read(fd, min(1 << 20, max_bytes + 1 - size))):
            chunks.append(chunk)
            size += len(chunk)
        data = b"".join(chunks)
        return data[:max_bytes], len(data) > max_bytes
    except OSError:
        return None, False
    finally:
        os.close(fd)


MAX_JSONL_BYTES = 16 * 2**20
"""Of a JSON-lines file a worker wrote (metrics, episodes), only this much is read (a 100 MB metrics.jsonl once
took the parent to 1.4 GB)."""
MAX_JSONL_LINES = 20_000
"""... and at most this many lines (a 1M-step training reports a few hundred)."""
MAX_LINE_BYTES = 256 * 1024
"""... each at most this long."""
MAX_COMPONENTS = 16
"""Reward components read from a worker's output: at most this many names (the rest are left out) ..."""
MAX_NAME_CHARS = 40
"""... each cut to this many characters of `NAME_CHARS` (others become "_"): a name is shown in prompts, tables
and plots, so it can neither grow a prompt nor carry markup, escapes or instructions."""
_NAME_OTHER = re.compile(r"[^A-Za-z0-9_.\-]")


def clean_name(name: Any) -> str:
    """A component name from a worker's output, safe to show anywhere (see `MAX_NAME_CHARS`)."""
    return _NAME_OTHER.sub("_", str(name)[:MAX_NAME_CHARS]) or "_"


def clean_components(value: Any) -> dict[str, float]:
    """Component name -> number from a worker's output: names cleaned (`clean_name`), at most `MAX_COMPONENTS`,
    values that are not finite numbers left out."""
    found: dict[str, float] = {}
    for name, number in value.items() if isinstance(value, dict) else ():
        if len(found) >= MAX_COMPONENTS:
            break
        if isinstance(number, (int, float)) and not isinstance(number, bool) and math.isfinite(number):
            found[clean_name(name)] = float(number)
    return found


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
