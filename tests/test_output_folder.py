"""Output folders: a command never writes into a folder that holds someone else's files (nothing in it changes),
and an output folder that cannot be written is a one-line error (exit 2) in every verb that has one."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from review_fixture import build_review_run
from test_cli_errors import GOOD_REWARD, check_error

from rewardsmith.errors import OutputFolderError
from rewardsmith.run_folder.claim import adopt, claim_dir


def snapshot(folder: Path) -> dict[str, tuple[bytes, int]]:
    """Every file under `folder` with its bytes and mtime (ns), and the folder's own entry list."""
    files = {str(p.relative_to(folder)): (p.read_bytes(), p.stat().st_mtime_ns) for p in folder.rglob("*") if p.is_file()}
    return {**files, ".": (b"\n".join(sorted(os.fsencode(n) for n in os.listdir(folder))), 0)}


def users_folder(path: Path) -> Path:
    """A folder with a user's own summary.json and best/reward.py (no run.json, no lock)."""
    (path / "best").mkdir(parents=True)
    (path / "summary.json").write_text('{"mine": true}\n')
    (path / "best" / "reward.py").write_text("# my own reward\n")
    return path


def earlier_run(path: Path) -> Path:
    """An earlier run's folder whose `.owner` lock is gone."""
    path.mkdir(parents=True)
    (path / "run.json").write_text(json.dumps({"run_id": "x", "config": {"task": "t"}}))
    (path / "events.jsonl").write_text('{"t": 1, "event": "run_started"}\n')
    (path / "summary.json").write_text('{"status": "finished"}\n')
    return path


def earlier_batch(path: Path) -> Path:
    """A batch folder (not running)."""
    path.mkdir(parents=True)
    (path / "batch.json").write_text(json.dumps({"batch_id": "x", "tasks": []}))
    return path


# -- the claim -------------------------------------------------------------------------------------------------


def test_claim_takes_a_new_or_empty_folder(tmp_path):
    assert claim_dir(tmp_path / "new" / "run") == tmp_path / "new" / "run"
    (tmp_path / "empty").mkdir()
    claim_dir(tmp_path / "empty")
    assert (tmp_path / "empty" / ".owner").read_text().split()[0] == str(os.getpid())


@pytest.mark.parametrize("make,needles", [
    (users_folder, ["not empty", "summary.json", "new or empty folder"]),
    (earlier_run, ["holds a run already", "rewardsmith resume", "new or empty folder"]),
    (earlier_batch, ["holds a batch already", "rewardsmith resume", "new or empty folder"]),
])
def test_claim_refuses_a_folder_with_files_and_changes_nothing(tmp_path, make, needles):
    folder = make(tmp_path / "out")
    before = snapshot(folder)
    with pytest.raises(OutputFolderError) as e:
        claim_dir(folder)
    for needle in needles:
        assert needle in str(e.value)
    assert snapshot(folder) == before


def test_claim_refuses_a_folder_a_live_process_claimed(tmp_path):
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / ".owner").write_text(f"{os.getppid()} 0\n")
    before = snapshot(tmp_path / "out")
    with pytest.raises(OutputFolderError, match=f"in use by a running rewardsmith process \\(pid {os.getppid()}\\)"):
        claim_dir(tmp_path / "out")
    assert snapshot(tmp_path / "out") == before


def test_claim_takes_up_a_start_cut_short(tmp_path):
    """A dead claimer's lock and the task copies a run writes before run.json are the start's own state."""
    folder = tmp_path / "out"
    (folder / "pkg").mkdir(parents=True)
    (folder / ".owner").write_text("999999999 0\n")
    (folder / "task.toml").write_text('name = "t"\n')
    (folder / "pkg" / "scorers.py").write_text("X = 1\n")
    claim_dir(folder)
    assert (folder / ".owner").read_text().split()[0] == str(os.getpid())
    (folder / "task.toml").unlink()
    (folder / "notes.txt").write_text("mine")  # anything else is not a cut-short start's
    (folder / ".owner").write_text("999999999 0\n")
    with pytest.raises(OutputFolderError, match="not empty"):
        claim_dir(folder)


def test_adopt_makes_a_batch_task_folder_claimable_again(tmp_path):
    folder = tmp_path / "task"
    folder.mkdir()
    (folder / ".owner").write_text(f"{os.getppid()} 0\n")  # a live pid: e.g. reused since the batch was killed
    (folder / "task.toml").write_text('name = "t"\n')
    with pytest.raises(OutputFolderError, match="in use"):
        claim_dir(folder)
    adopt(folder)  # the batch holds batch.lock: the folder is its own
    claim_dir(folder)


# -- through the verbs ------------------------------------------------------------------------------------------


@pytest.fixture
def files(tiny_spec, tmp_path):
    """A spec, a reward file, a task list and a regular file to put output folders under."""
    spec = tiny_spec("inverted-double-pendulum-balance")
    reward = tmp_path / "reward.py"
    reward.write_text(GOOD_REWARD)
    listing = tmp_path / "tasks.txt"
    listing.write_text(f"{spec}\n")
    (tmp_path / "a-file").write_text("not a folder\n")
    return {"spec": spec, "reward": reward, "list": listing, "file": tmp_path / "a-file"}


def verb_args(verb: str, files: dict[str, Path], out: Path) -> list[object]:
    model = ["-m", "scripted:/dev/null"]
    return {
        "run": ["run", files["spec"], *model, "--out", out],
        "batch": ["batch", files["list"], *model, "--out", out],
        "check": ["check", files["spec"], files["reward"], "--out", out],
        "train": ["train", files["spec"], files["reward"], "--out", out],
    }[verb]


@pytest.mark.parametrize("verb", ["run", "batch", "check", "train"])
@pytest.mark.parametrize("make", [users_folder, earlier_run])
def test_out_onto_a_folder_with_files_is_refused_unchanged(cli, files, tmp_path, verb, make):
    folder = make(tmp_path / "out")
    before = snapshot(folder)
    code, _, err = cli(*verb_args(verb, files, folder))
    check_error(code, err, str(folder), "new or empty folder")
    if make is earlier_run:
        assert f"rewardsmith resume {folder}" in err.replace("\n", "")
    assert snapshot(folder) == before


@pytest.mark.parametrize("verb", ["run", "batch", "check", "train"])
@pytest.mark.parametrize("under", ["a-file/sub", "a-file"])
def test_unwritable_out_is_one_line(cli, files, tmp_path, verb, under):
    code, _, err = cli(*verb_args(verb, files, tmp_path / under))
    check_error(code, err, under, "--out")
    assert files["file"].read_text() == "not a folder\n"


def test_new_task_into_an_unwritable_folder_is_one_line(cli, files, tmp_path):
    code, _, err = cli("new-task", "my-task", "--env", "InvertedDoublePendulum-v5", "--folder", tmp_path / "a-file/sub")
    check_error(code, err, "a-file/sub", "cannot write here", "--folder")


@pytest.fixture(scope="session")
def review_run(tmp_path_factory) -> Path:
    return build_review_run(tmp_path_factory.getbasetemp() / "review_run")


def test_export_into_an_unwritable_folder_is_one_line(cli, review_run, tmp_path):
    (tmp_path / "a-file").write_text("x")
    code, _, err = cli("export", review_run, "--to", tmp_path / "a-file" / "sub")
    check_error(code, err, "a-file/sub", "cannot write here", "--to")


def test_export_never_replaces_a_file_unless_forced(cli, review_run, tmp_path):
    to = tmp_path / "project"
    to.mkdir()
    (to / "README.md").write_text("my project\n")
    before = snapshot(to)
    code, _, err = cli("export", review_run, "--to", to)
    check_error(code, err, "README.md exist", "--force")
    assert snapshot(to) == before
    code, _, _ = cli("export", review_run, "--to", to, "--force")
    assert code == 0 and "compute_reward" in (to / "reward.py").read_text() and "my project" not in (to / "README.md").read_text()


def test_a_run_is_named_by_its_task_and_folder_once() -> None:
    """A batch names each run's folder after its task: the report's title read 'pendulum-swing-up ·
    pendulum-swing-up-pendulum-swing-up'."""
    from rewardsmith.run_folder.folder import run_id

    assert run_id("hopper-hop", Path("runs/hopper-hop/20261207-145313-8e6930")) == "hopper-hop-20261207-145313-8e6930"
    assert run_id("pendulum-swing-up", Path("/tmp/b1/pendulum-swing-up")) == "b1/pendulum-swing-up"
