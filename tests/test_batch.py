"""Batch runs: task lists, one shared worker pool, a failing task beside good ones, kill and resume."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rewardsmith.errors import RewardsmithError, TaskSpecError
from rewardsmith.search.batch import ROW_KEYS, BatchConfig, read_task_list

DATA = Path(__file__).parent / "data"
SCRIPT = DATA / "batch_script.jsonl"
BATCH_KEYS = {"batch_id", "list", "created_at", "versions", "config", "tasks"}
SUMMARY_KEYS = {"batch_id", "status", "updated_at", "wall_s", "tasks", "totals"}
BROKEN = """name = "broken-env"
env = "NoSuchEnv-v0"
description = "A task whose environment does not exist."

[fitness]
scorer = "scorers:ForwardProgress"
kwargs = { body = "torso" }
"""


def test_task_list_reads_names_paths_and_comments(tmp_path, tiny_spec):
    tiny_spec("reacher-reach")
    listing = tmp_path / "tasks.txt"
    listing.write_text("# demo\nreacher-reach.toml   # a path beside the list\n\nhalfcheetah-run\n")
    specs = read_task_list(str(listing))
    assert [s.name for s in specs] == ["reacher-reach", "halfcheetah-run"]
    assert specs[0].source == (tmp_path / "reacher-reach.toml").resolve()


def test_task_list_glob_and_errors(tmp_path, tiny_spec):
    tiny_spec("reacher-reach")
    tiny_spec("hopper-hop")
    assert [s.name for s in read_task_list(str(tmp_path / "*.toml"))] == ["hopper-hop", "reacher-reach"]
    with pytest.raises(RewardsmithError, match="matches no task spec"):
        read_task_list(str(tmp_path / "nothing*.toml"))
    with pytest.raises(RewardsmithError, match="no such task list"):
        read_task_list(str(tmp_path / "missing.txt"))
    (tmp_path / "empty.txt").write_text("# only a comment\n")
    with pytest.raises(RewardsmithError, match="empty"):
        read_task_list(str(tmp_path / "empty.txt"))
    (tmp_path / "twice.txt").write_text("reacher-reach\nreacher-reach.toml\n")
    with pytest.raises(RewardsmithError, match="listed twice: reacher-reach"):
        read_task_list(str(tmp_path / "twice.txt"))
    (tmp_path / "unknown.txt").write_text("no-such-task\n")
    with pytest.raises(TaskSpecError, match=r"unknown\.txt: unknown task 'no-such-task'"):  # the list is named
        read_task_list(str(tmp_path / "unknown.txt"))
    (tmp_path / "binary.txt").write_bytes(b"\xff\xfehopper-hop\n")  # was a UnicodeDecodeError traceback
    with pytest.raises(RewardsmithError, match=r"binary\.txt: cannot read the task list .*it must be UTF-8 text"):
        read_task_list(str(tmp_path / "binary.txt"))


def test_shipped_lists_name_shipped_tasks():
    root = Path(__file__).parent.parent / "envs"
    assert len(read_task_list(str(root / "quick.txt"))) == 3
    assert len(read_task_list(str(root / "locomotion.txt"))) == 8


def test_batch_options_become_run_configs(tmp_path):
    config = BatchConfig(workers=2, run_options={"model": "scripted:x.jsonl", "iterations": 1, "device": "cuda"})
    run = config.run_config(tmp_path / "t.toml", tmp_path / "out", 2)
    assert (run.model, run.iterations, run.device, run.workers) == ("scripted:x.jsonl", 1, "cuda", 2)
    with pytest.raises(RewardsmithError, match="unknown batch run options: out"):
        BatchConfig(run_options={"out": "x"}).run_config(tmp_path / "t.toml", tmp_path / "o", 1)


def _rewardsmith(*args: str, cwd: Path) -> subprocess.Popen:
    env = {**os.environ, "XDG_CACHE_HOME": str(cwd / "cache"), "COLUMNS": "200"}
    return subprocess.Popen([sys.executable, "-m", "rewardsmith", *map(str, args)], cwd=cwd, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)


@pytest.mark.slow
def test_batch_survives_a_failing_task_and_resumes_after_kill(tmp_path, tiny_spec):
    for name in ("inverted-double-pendulum-balance", "reacher-reach"):
        tiny_spec(name)
    (tmp_path / "broken-env.toml").write_text(BROKEN)
    listing = tmp_path / "tasks.txt"
    listing.write_text("inverted-double-pendulum-balance.toml\nreacher-reach.toml\nbroken-env.toml\n")
    out = tmp_path / "batch"
    first = _rewardsmith("batch", listing, "--out", out, "--workers", "2", "-m", f"scripted:{SCRIPT}",
                         "--iterations", "1", "--samples", "2", "--final-seeds", "1", cwd=tmp_path)
    try:  # kill the whole batch (parent and workers) as soon as one candidate has trained
        deadline = time.monotonic() + 300
        while not any('"training_done"' in p.read_text() for p in out.glob("*/events.jsonl")):
            assert first.poll() is None, first.stdout.read()
            assert time.monotonic() < deadline, "no candidate trained within 300 s"
            time.sleep(0.5)
    finally:
        os.killpg(first.pid, signal.SIGKILL)
        first.wait()
    batch = json.loads((out / "batch.json").read_text())
    assert set(batch) >= BATCH_KEYS
    assert [t["run_dir"] for t in batch["tasks"]] == ["inverted-double-pendulum-balance", "reacher-reach", "broken-env"]
    assert batch["config"]["run_options"]["iterations"] == 1 and batch["config"]["workers"] == 2
    killed = json.loads((out / "summary.json").read_text())
    assert killed["status"] == "running"
    assert any(r["status"] != "finished" for r in killed["tasks"][:2])

    second = _rewardsmith("resume", out, cwd=tmp_path)
    output, _ = second.communicate(timeout=600)
    assert second.returncode == 1, output  # the broken task still fails; the others finish
    summary = json.loads((out / "summary.json").read_text())
    assert set(summary) >= SUMMARY_KEYS and summary["status"] == "failed"
    rows = {r["task"]: r for r in summary["tasks"]}
    assert all(set(ROW_KEYS) == set(r) for r in rows.values())
    for name in ("inverted-double-pendulum-balance", "reacher-reach"):
        assert rows[name]["status"] == "finished", rows[name]
        assert rows[name]["final_fitness_mean"] is not None and rows[name]["tokens"] > 0
        assert rows[name]["final_seeds"] == batch["config"]["run_options"]["final_seeds"]
        assert name in output
    assert output.count(f"n={rows['reacher-reach']['final_seeds']}") >= 2  # each result with its sample size
    assert rows["broken-env"]["status"] == "failed" and "NoSuchEnv" in rows["broken-env"]["error"]
    assert summary["totals"] == {"tasks": 3, "finished": 2, "failed": 1, "tokens": sum(r["tokens"] or 0 for r in
                                 rows.values()), "cost_usd": 0.0}
    assert f"rewardsmith resume {out}" in output
    assert not (out / "batch.lock").exists()
    resumed = [json.loads(line) for p in out.glob("*/events.jsonl") for line in p.read_text().splitlines()]
    assert any(e["event"] == "run_resumed" for e in resumed)


def test_a_tasks_search_fitness_is_the_number_its_pick_compared():
    """Where a run trained its winner on two seeds, the batch row shows their mean (marked x2), not the first alone."""
    from rewardsmith.formatting import pick_number
    from rewardsmith.search.batch_live import searched

    assert pick_number(0.5, [0.5, 0.25]) == 0.375
    assert pick_number(0.5, [0.5]) == 0.5 and pick_number(0.5, None) == 0.5 and pick_number(None, "junk") is None
    assert searched({"best_fitness": 0.375, "best_seeds": 2}) == "0.375 x2"
    assert searched({"best_fitness": 0.5, "best_seeds": 1}) == "0.5"


def test_the_summary_names_each_run_folder_as_review_takes_it(tmp_path):
    """The table printed each task's run folder relative to the batch folder: the bare task name, which `review`
    does not find from where the user stands."""
    from rich.console import Console

    from rewardsmith.search.batch_live import summary_table

    row = {"task": "pendulum-swing-up", "run_dir": "pendulum-swing-up", "status": "finished", "best_candidate": "1.1"}
    summary = {"batch_id": "b1", "status": "finished", "tasks": [row], "totals": {"tasks": 1, "finished": 1}}
    for width in (100, 200):  # the list form and the table
        console = Console(width=width, record=True, file=open(os.devnull, "w"))  # noqa: SIM115
        console.print(summary_table(summary, tmp_path / "b1"), crop=False)
        assert str(tmp_path / "b1" / "pendulum-swing-up") in console.export_text(), width
