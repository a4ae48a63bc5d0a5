"""Every hand-written example reward in `envs/examples/` is named after its task and passes `rewardsmith check`
(the AST policy and a sandboxed smoke run on the task's real states), without a shuttle warning (the held-out test of
`rewardsmith.workers.shuttle`: none of the 35 was flagged when the rule was fixed)."""

from __future__ import annotations

import pytest

from rewardsmith.llm.reset_gates import reset_heights, shut_gates
from rewardsmith.stages.env_description import describe
from rewardsmith.task import ENVS_DIR, list_tasks, load_task

EXAMPLES = sorted((ENVS_DIR / "examples").glob("*.py"))
FAST = {"bipedalwalker_walk"}  # the quickest (2 s); a MuJoCo hand check takes 20 s on a loaded machine


@pytest.mark.parametrize(
    "example", [e if e.stem in FAST else pytest.param(e, marks=pytest.mark.slow) for e in EXAMPLES], ids=lambda e: e.stem
)
def test_example_reward_passes_check_on_its_task(cli, example) -> None:
    task = example.stem.replace("_", "-")
    assert load_task(task).name == task
    code, out, err = cli("check", task, example, "--json")
    assert code == 0 and '"accepted": true' in out, out + err
    assert '"code": "shuttle"' not in out, out


def test_every_shipped_task_has_an_example() -> None:
    """`rewardsmith calibrate` trains each shipped task's example as its good reward (issue 28)."""
    names = {e.stem for e in EXAMPLES}
    missing = [spec.name for spec in list_tasks(ENVS_DIR) if spec.name.replace("-", "_") not in names]
    assert not missing, f"no example reward in envs/examples/ for: {', '.join(missing)}"


HEIGHT_GATED = [e for e in EXAMPLES if ".pos[2]" in e.read_text(encoding="utf-8")]


@pytest.mark.parametrize("example", HEIGHT_GATED, ids=lambda e: e.stem)
def test_an_examples_height_gates_hold_at_its_own_robots_reset_pose(example) -> None:
    """The premise of the offline chooser's reset check (`llm.reset_gates`): a gate shut at another robot's reset
    pose was built for another robot's size, since every shipped example's gates hold at its own."""
    spec = load_task(example.stem.replace("_", "-"))
    heights = reset_heights(describe(spec))
    assert heights, "the description prints no reset heights"
    assert shut_gates(example.read_text(encoding="utf-8"), heights) == []


def test_the_reset_check_sees_ant_spins_upright_band() -> None:
    code = (ENVS_DIR / "examples" / "ant_spin.py").read_text(encoding="utf-8")
    assert shut_gates(code, {"torso": 0.75}) == []
    assert shut_gates(code, {"torso": 0.0}) == ["0.2 <= float(torso.pos[2]) <= 1.0"]
    assert shut_gates(code, {"other": 0.0}) == []  # a body the prompt does not place: nothing to judge
