"""`CandidateFolder`: one candidate's folder, `iter_<i>/cand_<j>/`, as code.

It owns the candidate's paths (reward file, attempts, critic and screen folders, the training worker's files,
`eval/`, the checkpoint and warm-start weights, the video), writes its records through the typed models of
`records`, and knows which files only the parent may write (`PARENT_ONLY`): those are signed when written or
accepted (`rewardsmith.run_folder.proofs`) and read only when their proof holds, so a file a worker planted is
never shown, judged or put into a prompt. Files the workers write are read capped and shown as reported.
"""

from __future__ import annotations

import fnmatch
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rewardsmith.files import MAX_READ_BYTES, parse_json, read_capped, write_bytes_atomic, write_json_atomic
from rewardsmith.run_folder.names import (
    ANALYSIS_FILE,
    ATTEMPTS_FILE,
    CANDIDATE_FILE,
    CRITIC_FILE,
    EPISODES_FILE,
    EVAL_DIR,
    EVALUATION_FILE,
    HEADER,
    METRICS_FILE,
    REWARD_FILE,
    RUNG_SCREEN_DIR,
    SCREEN_FILE,
    TRAJECTORIES_FILE,
    VIDEO_NAMES,
    WEIGHTS_FILE,
    attempt_file,
    cand_dir_name,
    strip_header,
)
from rewardsmith.run_folder.proofs import MAX_SIGNED_BYTES, Proofs
from rewardsmith.run_folder.records import (
    Attempt,
    Attempts,
    CandidateRecord,
    CriticRecord,
    Evaluation,
    R,
)

PARENT_ONLY = (
    REWARD_FILE,
    CANDIDATE_FILE,
    ATTEMPTS_FILE,
    CRITIC_FILE,
    SCREEN_FILE,
    ANALYSIS_FILE,
    "attempt_*.py",
    "attempt_*.reply.md",
    "attempt_*.critic.json",
    "attempt_*.screen.json",
    f"{RUNG_SCREEN_DIR}/{SCREEN_FILE}",
    f"{EVAL_DIR}/{EVALUATION_FILE}",
    f"{EVAL_DIR}/{EPISODES_FILE}",
    f"{EVAL_DIR}/{TRAJECTORIES_FILE}",
    *VIDEO_NAMES,
)
"""Files (relative to the candidate folder) that the judge, the views or the prompts read: written by the parent,
or by a worker that never loads reward code and accepted by the parent right after it ended (the evaluation),
and read only with the parent's proof."""
DESIGN_FILES = (REWARD_FILE, ATTEMPTS_FILE, CRITIC_FILE, SCREEN_FILE, "attempt_*")
"""Written by the parent while the candidate is designed, before any worker may write in its folder."""
EVALUATION_FILES = (EVALUATION_FILE, EPISODES_FILE, TRAJECTORIES_FILE)
"""Written by the evaluation worker into the parent-made `eval/` after the training worker ended."""
CAND_DIR = re.compile(r"^iter_(\d+)/cand_(\d+)$")


def candidate_at(path: Path) -> CandidateFolder | None:
    """The `CandidateFolder` at `path`, or None when `path` is not `<run>/iter_<i>/cand_<j>` (a `train` or test
    folder: its files have no proofs and read as they are)."""
    try:
        return CandidateFolder.at(path)
    except ValueError:
        return None


def parent_only(rel: str) -> bool:
    """Whether a path relative to a candidate folder names a parent-only file."""
    return any(fnmatch.fnmatchcase(rel, pattern) for pattern in PARENT_ONLY)


@dataclass(frozen=True)
class CandidateFolder:
    """`iter_<iteration>/cand_<index>/` of the run folder `run` (see the module docstring)."""

    run: Path
    iteration: int
    index: int

    @classmethod
    def at(cls, path: Path) -> CandidateFolder:
        """The candidate folder at `path` (`<run>/iter_<i>/cand_<j>`); ValueError for any other path."""
        path = Path(path)
        match = CAND_DIR.match(f"{path.parent.name}/{path.name}")
        if match is None:
            raise ValueError(f"{path}: not a candidate folder (iter_<i>/cand_<j>)")
        return cls(path.parent.parent, int(match[1]), int(match[2]))

    # -- paths -------------------------------------------------------------------------------------------------

    @property
    def id(self) -> str:
        """The candidate's id, "i.j"."""
        return f"{self.iteration}.{self.index}"

    @property
    def path(self) -> Path:
        return self.run / cand_dir_name(self.iteration, self.index)

    @property
    def proofs(self) -> Proofs:
        return Proofs(self.run)

    def file(self, name: str) -> Path:
        """A file of the candidate folder by name (one of the `names` constants)."""
        return self.path / name

    reward_path = property(lambda self: self.file(REWARD_FILE))
    record_path = property(lambda self: self.file(CANDIDATE_FILE))
    attempts_path = property(lambda self: self.file(ATTEMPTS_FILE))
    critic_path = property(lambda self: self.file(CRITIC_FILE))
    rung_screen_dir = property(lambda self: self.file(RUNG_SCREEN_DIR))
    analysis_path = property(lambda self: self.file(ANALYSIS_FILE))
    metrics_path = property(lambda self: self.file(METRICS_FILE))
    weights_path = property(lambda self: self.file(WEIGHTS_FILE))
    eval_dir = property(lambda self: self.file(EVAL_DIR))
    evaluation_path = property(lambda self: self.file(EVAL_DIR) / EVALUATION_FILE)
    episodes_path = property(lambda self: self.file(EVAL_DIR) / EPISODES_FILE)

    def attempt_path(self, attempt: int, kind: str = "py") -> Path:
        """`attempt_<n>.<kind>` (kind "py", "reply.md", "critic.json" or "screen.json")."""
        return self.file(attempt_file(attempt, kind))

    # -- the parent's proofs -----------------------------------------------------------------------------------

    def write(self, path: Path, data: bytes) -> Path:
        """Write a parent-only file atomically and sign it."""
        write_bytes_atomic(path, data)
        self.proofs.sign(path, data)
        return path

    def sign(self, path: Path) -> bool:
        """Sign a parent-only file as it is now (see `accept_design`, `accept_evaluation`)."""
        return self.proofs.sign(path)

    def verified(self, path: Path, max_bytes: int = MAX_READ_BYTES) -> bytes | None:
        """The bytes of a parent-only file if the parent's proof holds, else None (never a planted file)."""
        return self.proofs.read(path, max_bytes)

    def proven(self, path: Path) -> bool:
        """Whether a parent-only file (of any size up to `MAX_SIGNED_BYTES`) holds what the parent signed."""
        return self.verified(path, MAX_SIGNED_BYTES) is not None

    def verified_json(self, path: Path, max_bytes: int = MAX_READ_BYTES) -> Any:
        """A parent-only JSON file, verified (see `verified`) and parsed; None if unproven or not JSON."""
        return parse_json(self.verified(path, max_bytes))

    def verified_record(self, path: Path, model: type[R]) -> R | None:
        """A parent-only record, verified and validated; None if unproven, unreadable or malformed."""
        data = self.verified_json(path)
        try:
            return model.model_validate(data) if data is not None else None
        except ValueError:
            return None

    def unproven(self) -> list[Path]:
        """The parent-only files present without a valid proof (planted, or changed after the parent wrote them)."""
        found = []
        for folder in (self.path, self.rung_screen_dir, self.eval_dir):  # where PARENT_ONLY names are: no deep walk
            try:
                entries = sorted(os.scandir(folder), key=lambda e: e.name)
            except OSError:
                continue
            for entry in entries:
                path = Path(entry.path)
                if parent_only(path.relative_to(self.path).as_posix()) and (
                    entry.is_symlink() or not entry.is_file() or not self.proven(path)
                ):
                    found.append(path)
        return found

    def accept_design(self) -> None:
        """Sign the files written while the candidate was designed (`DESIGN_FILES`): until its record is saved no
        worker may write in this folder (the critic and screen workers write only their own subfolders)."""
        for path in sorted(self.path.iterdir()) if self.path.is_dir() else []:
            if path.is_file() and any(fnmatch.fnmatchcase(path.name, p) for p in DESIGN_FILES):
                self.sign(path)

    def restore_design(self, model: str) -> list[str]:
        """After a resume removed unproven files: make `reward.py` and `critic.json` again from the accepted attempt
        (its code and critic report, both signed); returns the names restored."""
        record, restored = self.record(), list[str]()
        accepted = next((a for a in reversed(self.attempts()) if a.accepted), None)
        if record is None or record.status == "rejected" or accepted is None:
            return restored
        if not self.reward_path.exists() and (code := self.verified(self.attempt_path(accepted.attempt))) is not None:
            self.write_reward(code.decode("utf-8", errors="replace"), parent=record.parent, model=model)
            restored.append(REWARD_FILE)
        report = self.verified(self.attempt_path(accepted.attempt, "critic.json"))
        if not self.critic_path.exists() and report is not None:
            self.write(self.critic_path, report)
            restored.append(CRITIC_FILE)
        return restored

    def accept_evaluation(self, evaluation: Evaluation) -> bool:
        """Sign `eval/`'s results right after the evaluation worker ended, if `evaluation.json` still holds
        `evaluation` (the record the parent validated); False (nothing signed) otherwise."""
        data = parse_json(read_plain(self.evaluation_path))
        if data is None or Evaluation.model_validate(data) != evaluation:
            return False
        for name in EVALUATION_FILES:
            if (self.eval_dir / name).is_file():
                self.sign(self.eval_dir / name)
        return True

    # -- the reward file and the attempts ------------------------------------------------------------------------

    def write_reward(self, code: str, *, parent: str | None, model: str) -> Path:
        """Write `reward.py`: the accepted code below the header comment (id, iteration, parent, model)."""
        header = (
            f"{HEADER} {self.id} (iteration {self.iteration}, parent {parent or 'none'}, model {model})\n"
            f"{HEADER}: compute_reward(state, action, next_state) -> (float, dict[str, float])\n\n"
        )
        return self.write(self.reward_path, (header + code.strip() + "\n").encode("utf-8"))

    def reward_code(self) -> str | None:
        """The accepted code without its header, verified; None if there is none."""
        data = self.verified(self.reward_path)
        return strip_header(data.decode("utf-8", errors="replace")) if data is not None else None

    def write_attempt(self, attempt: int, text: str, kind: str = "py") -> Path:
        """Write attempt n's code (`kind` "py") or the raw reply that held none ("reply.md")."""
        return self.write(self.attempt_path(attempt, kind), text.encode("utf-8"))

    def save_attempts(self, attempts: list[Attempt]) -> None:
        """Write `attempts.json`."""
        self.save_json(self.attempts_path, [a.model_dump() for a in attempts])

    def attempts(self) -> list[Attempt]:
        """The attempts on record (verified), oldest first."""
        found = self.verified_record(self.attempts_path, Attempts)
        return found.root if found is not None else []

    # -- records -------------------------------------------------------------------------------------------------

    def save_json(self, path: Path, data: Any) -> None:
        """Write a parent-only JSON file atomically and sign it."""
        write_json_atomic(path, data)
        self.sign(path)

    def record(self) -> CandidateRecord | None:
        """`candidate.json`, verified; None while the candidate has none (or a worker planted it)."""
        return self.verified_record(self.record_path, CandidateRecord)

    def save_record(self, record: CandidateRecord) -> None:
        """Write `candidate.json`; the first record of a design also signs the design's files."""
        self.path.mkdir(parents=True, exist_ok=True)
        if record.status in ("designed", "rejected") and self.record() is None:
            self.accept_design()
        self.save_json(self.record_path, record.model_dump())

    def rung_screen(self) -> dict[str, Any] | None:
        """The first cut's screen verdict (`rung_screen/screen.json`), verified; None if absent or unproven."""
        data = self.verified_json(self.rung_screen_dir / SCREEN_FILE, MAX_SIGNED_BYTES)
        return data if isinstance(data, dict) else None

    def critic(self) -> CriticRecord | None:
        """The critic's last report (`critic.json`), verified."""
        return self.verified_record(self.critic_path, CriticRecord)

    def evaluation(self) -> Evaluation | None:
        """The trusted evaluation (`eval/evaluation.json`), verified: never a planted one."""
        return self.verified_record(self.evaluation_path, Evaluation)

    def analysis(self) -> dict[str, Any] | None:
        """`analysis.json` as written (verified); None if missing or unproven, so it is computed again."""
        data = self.verified_json(self.analysis_path, 16 * MAX_READ_BYTES)
        return data if isinstance(data, dict) else None

    def save_analysis(self, analysis: dict[str, Any]) -> None:
        """Write `analysis.json` (the analyzer's dict; `Analysis` reads it back)."""
        self.save_json(self.analysis_path, analysis)

    def video(self) -> Path | None:
        """The policy video, if the parent recorded it (verified), else None."""
        for name in VIDEO_NAMES:
            path = self.file(name)
            if path.is_file() and self.proven(path):
                return path
        return None


def read_plain(path: Path) -> bytes | None:
    """A worker-written file read capped (no proof expected)."""
    return read_capped(path, MAX_READ_BYTES)
