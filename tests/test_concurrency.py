"""Concurrent runs never share a folder, and the user-level LLM cache survives concurrent writers."""

from __future__ import annotations

import json
import multiprocessing
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rewardsmith.llm.cache import ResponseCache
from rewardsmith.run_folder.claim import new_run_dir

SCRIPT = Path(__file__).parent / "data" / "batch_script.jsonl"


def _make_dirs(root: str, name: str, count: int, queue) -> None:
    queue.put([str(new_run_dir(Path(root), name)) for _ in range(count)])


def test_new_run_dir_is_unique_across_processes(tmp_path):
    ctx = multiprocessing.get_context("spawn")
    queue = ctx.Queue()
    procs = [ctx.Process(target=_make_dirs, args=(str(tmp_path), "batch", 50, queue)) for _ in range(2)]
    for p in procs:
        p.start()
    made = queue.get(timeout=60) + queue.get(timeout=60)
    for p in procs:
        p.join(timeout=60)
    assert len(made) == len(set(made)) == 100
    assert len(list((tmp_path / "batch").iterdir())) == 100


def _hammer(directory: str, writer: int, rounds: int) -> None:
    cache = ResponseCache([Path(directory)])
    for n in range(rounds):
        cache.put("samekey", {"writer": writer, "n": n, "text": "x" * (2000 + writer * 3000)})


def test_user_cache_entries_are_never_half_written(tmp_path):
    ctx = multiprocessing.get_context("spawn")
    writers = [ctx.Process(target=_hammer, args=(str(tmp_path), w, 300)) for w in range(2)]
    for w in writers:
        w.start()
    cache, seen = ResponseCache([tmp_path]), set()
    while any(w.is_alive() for w in writers):
        existed = (tmp_path / "samekey.json").exists()  # once written, replaced atomically: always readable
        entry = cache.get("samekey")  # an unreadable (torn) entry reads as a miss
        if entry is not None:
            assert len(entry["text"]) == 2000 + entry["writer"] * 3000
            seen.add(entry["writer"])
        elif existed:
            pytest.fail("a cache entry existed but could not be read: a torn write")
    for w in writers:
        w.join()
        assert w.exitcode == 0
    assert [p.name for p in tmp_path.iterdir()] == ["samekey.json"]  # no temp files left behind
    assert seen


@pytest.mark.slow
def test_two_runs_started_together_get_their_own_folders(tmp_path, tiny_spec):
    spec = tiny_spec("inverted-double-pendulum-balance")
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    argv = [sys.executable, "-m", "rewardsmith", "run", str(spec), "-m", f"scripted:{SCRIPT}", "--iterations", "1",
            "--samples", "1", "--final-seeds", "1", "--workers", "1"]
    start = time.time()
    procs = [subprocess.Popen(argv, cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
             for _ in range(2)]
    outputs = [p.communicate(timeout=600)[0] for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outputs
    folders = sorted((tmp_path / "runs" / "inverted-double-pendulum-balance").iterdir())
    assert len(folders) == 2
    pids = set()
    for folder in folders:
        events = [json.loads(line) for line in (folder / "events.jsonl").read_text().splitlines()]
        started = events[0]
        assert started["event"] == "run_started" and (tmp_path / started["run_dir"]).resolve() == folder.resolve()
        assert events[-1]["event"] == "run_finished"
        assert {e.get("pid") for e in events if "pid" in e} == {started["pid"]}  # one writer per folder
        pids.add(started["pid"])
        summary = json.loads((folder / "summary.json").read_text())
        assert summary["status"] == "finished" and summary["candidates"] == 1
        assert started["t"] >= start - 1
        assert (folder / "best" / "reward.py").is_file()
    assert len(pids) == 2
