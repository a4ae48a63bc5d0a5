"""Proof that the parent wrote a file: an HMAC-SHA256 of its path and bytes under the run's own key.

Workers write inside the run folder (a training worker's folder is its candidate's folder), so a file there may
have been planted. Every file that the judge, the views or the designer's prompts read is written (or accepted
after a trusted worker wrote it) by the parent, which then appends its proof to `proofs.jsonl`; readers take the
file only when the proof matches. The key (`.key`, mode 600) and the proofs sit at the run folder's top level:
no worker can read the key or write there (Landlock allows reads below the interpreter and the package only,
writes below the job's own folder; a worker that dropped root cannot open a mode-600 file either), and a worker
that could write the proofs still could not forge one without the key.

A run folder written before proofs existed has no key: its files read as before (`legacy`), and resuming it
adopts them once (`RunFolder.prepare`).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
import threading
from pathlib import Path

from rewardsmith.files import append_jsonl, read_capped
from rewardsmith.run_folder.names import KEY_FILE, PROOFS_FILE

MAX_SIGNED_BYTES = 512 * 2**20
"""The largest file the parent signs or verifies (videos, trajectory archives)."""
MAX_PROOFS_BYTES = 64 * 2**20
_LOCK = threading.Lock()


class Proofs:
    """The proofs of one run folder (see the module docstring)."""

    def __init__(self, run: Path) -> None:
        self.run = Path(run)
        self._key: bytes | None = None
        self._ledger: dict[str, str] = {}
        self._stamp: tuple[int, int] | None = None

    @property
    def legacy(self) -> bool:
        """True for a run folder written before proofs existed (it has no key)."""
        return not (self.run / KEY_FILE).exists()

    def create_key(self) -> None:
        """Make the run's key (once; mode 600) if it has none."""
        try:
            fd = os.open(self.run / KEY_FILE, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        except FileExistsError:
            return
        with os.fdopen(fd, "wb") as f:
            f.write(secrets.token_hex(32).encode())

    def key(self) -> bytes | None:
        """The run's key, or None in a legacy folder (or an unreadable key: then nothing verifies)."""
        if self._key is None:
            data = read_capped(self.run / KEY_FILE, 256)
            self._key = data.strip() if data else None
        return self._key

    def digest(self, rel: str, data: bytes) -> str | None:
        """HMAC-SHA256 of a file's path (relative to the run folder) and bytes; None without a key."""
        key = self.key()
        if not key:
            return None
        mac = hmac.new(key, rel.encode("utf-8") + b"\0", hashlib.sha256)
        mac.update(data)
        return mac.hexdigest()

    def rel(self, path: Path) -> str:
        """A path inside the run folder, relative to it (ValueError outside it)."""
        return Path(path).relative_to(self.run).as_posix()

    def sign(self, path: Path, data: bytes | None = None) -> bool:
        """Record the proof of a file the parent wrote (of `data`, its bytes, when given); False if it is
        missing, not a regular file, too large, or the run has no key."""
        if data is None:
            data = read_capped(path, MAX_SIGNED_BYTES)
        rel = self.rel(path)
        digest = None if data is None else self.digest(rel, data)
        if digest is None:
            return False
        with _LOCK:
            append_jsonl(self.run / PROOFS_FILE, {"path": rel, "hmac": digest})
            self._ledger[rel] = digest
        return True

    def ledger(self) -> dict[str, str]:
        """Path -> the last proof recorded for it (re-read when `proofs.jsonl` changed)."""
        path = self.run / PROOFS_FILE
        try:
            info = path.stat()
        except OSError:
            return {}
        stamp = (info.st_size, info.st_mtime_ns)
        if stamp != self._stamp:
            data = read_capped(path, MAX_PROOFS_BYTES) or b""
            ledger: dict[str, str] = {}
            for line in data.decode("utf-8", errors="replace").splitlines():
                try:
                    entry = json.loads(line)
                except ValueError:
                    continue
                if isinstance(entry, dict) and isinstance(entry.get("path"), str):
                    if isinstance(entry.get("hmac"), str):
                        ledger[entry["path"]] = entry["hmac"]
                    else:
                        ledger.pop(entry["path"], None)
            self._ledger, self._stamp = ledger, stamp
        return self._ledger

    def proven(self, path: Path, data: bytes) -> bool:
        """Whether `data`, read from `path`, is what the parent signed there."""
        expected = self.ledger().get(self.rel(path))
        digest = self.digest(self.rel(path), data)
        return expected is not None and digest is not None and hmac.compare_digest(expected, digest)

    def read(self, path: Path, max_bytes: int = MAX_SIGNED_BYTES) -> bytes | None:
        """The bytes of a parent-only file if its proof holds (in a legacy folder: if it is readable), else None."""
        data = read_capped(path, max_bytes)
        if data is None or self.legacy:
            return data
        return data if self.proven(path, data) else None
