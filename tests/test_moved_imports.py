"""The public API's moved modules (`rewardsmith.fitness` and `rewardsmith.state` now live in `rewardsmith.reward`):
no re-export shims, but a trusted module copied into an older run folder still imports, its imports rewritten on
load, and such a run folder still resumes."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from rewardsmith.reward.fitness import EpisodeScorer
from rewardsmith.reward.state import State
from rewardsmith.run_folder.folder import RunFolder
from rewardsmith.task import import_from_folder, rewrite_moved_imports

OLD_SCORER = """\
from __future__ import annotations

from rewardsmith.fitness import EpisodeScorer
from rewardsmith.state import State


class Height(EpisodeScorer):
    def score(self, state: State) -> float:
        return float(state.obs[0])
"""


def test_a_scorer_that_imports_the_old_paths_loads(tmp_path):
    (tmp_path / "old_scorers.py").write_text(OLD_SCORER)
    scorer = import_from_folder(tmp_path, "old_scorers:Height")
    assert issubclass(scorer, EpisodeScorer) and scorer.score.__annotations__["state"] in ("State", State)
    assert "rewardsmith.fitness" not in sys.modules and "rewardsmith.state" not in sys.modules  # no shim was used
    assert (tmp_path / "old_scorers.py").read_text() == OLD_SCORER  # the file itself is left as it was


def test_only_import_statements_are_rewritten():
    source = b"from rewardsmith.fitness import EpisodeScorer\nimport rewardsmith.state as st\nx = 'rewardsmith.state'\n"
    assert rewrite_moved_imports(source) == (
        b"from rewardsmith.reward.fitness import EpisodeScorer\nimport rewardsmith.reward.state as st\n"
        b"x = 'rewardsmith.state'\n"
    )
    assert rewrite_moved_imports(b"from rewardsmith.stateful import x\n") == b"from rewardsmith.stateful import x\n"


@pytest.mark.slow
def test_an_old_run_folder_whose_scorer_imports_the_old_paths_resumes(tmp_path):
    from test_resume import events, run_cli, unpack_fixture

    out = unpack_fixture(tmp_path)
    scorers = out / "scorers.py"
    old = scorers.read_text().replace("rewardsmith.reward.fitness", "rewardsmith.fitness")
    scorers.write_text(old.replace("rewardsmith.reward.state", "rewardsmith.state"))  # as copied before the move
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache"), "PYTHONPATH": str(Path(__file__).parents[1])}
    result = run_cli("resume", str(out), cwd=tmp_path, env=env)
    assert result.returncode == 0, result.stdout + result.stderr
    assert events(out)[-1]["event"] == "run_finished"
    assert json.loads((out / "summary.json").read_text())["status"] == "finished"
    assert RunFolder(out).status() == "finished"
