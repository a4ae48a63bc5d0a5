"""The MJX backend's branch rewrite (`workers.mjx.rewrite`): which value branches become numpy's element-wise forms,
which stay as written, and the check that the rewritten reward keeps its values on real states. No JAX needed."""

from __future__ import annotations

import ast
import tomllib

import pytest

from rewardsmith.sandbox.policy import load_reward, prepare_gate
from rewardsmith.task import ENVS_DIR, load_task
from rewardsmith.workers.critic import collect_transitions
from rewardsmith.workers.mjx.envs import supported
from rewardsmith.workers.mjx.rewrite import same_values, traceable_source


def rewritten(expression: str) -> str:
    out = traceable_source(f"y = {expression}")
    return "unchanged" if out is None else ast.unparse(ast.parse(out).body[0].value)  # type: ignore[attr-defined]


def test_branches_on_values_become_element_wise():
    assert rewritten("a if c > 0 else b") == "np.where(c > 0, a, b)"
    assert rewritten("1.0 if x > 0 and y < 1 else 0.0") == "np.where(np.logical_and(x > 0, y < 1), 1.0, 0.0)"
    assert rewritten("0.8 <= z <= 2.0") == "np.logical_and(0.8 <= z, z <= 2.0)"
    assert rewritten("not x > 0") == "np.logical_not(x > 0)"
    assert rewritten("a if ok or done else b") == "np.where(np.logical_or(ok, done), a, b)"  # a condition: any names


def test_numbers_picked_by_and_or_keep_pythons_meaning():
    assert rewritten("scale or 1.0") == "unchanged"  # `or` as a default value, not a condition
    assert rewritten("x and y") == "unchanged"
    assert rewritten("min(a, b) + 1") == "unchanged"


def test_a_name_is_a_truth_value_when_every_assignment_of_it_is_one():
    source = "def f(z, d):\n    up = 0.2 <= z and z <= 1.0\n    counts = up and d <= 1.0\n    return counts\n"
    assert "np.logical_and(up, d <= 1.0)" in traceable_source(source)
    mixed = "def f(z):\n    up = z > 0\n    up = 0.5\n    return up and z\n"
    assert traceable_source(mixed) is None  # `up` is also a number: `up and z` stays


def test_if_statements_stay_untraceable():
    assert traceable_source("def f(x):\n    if x > 0:\n        return 1.0\n    return 0.0\n") is None


def test_a_rewrite_that_changes_values_is_caught():
    prepare_gate()
    original = load_reward("def compute_reward(s, a, n):\n    v = s or 2.0\n    return v, {'v': v}\n")
    changed = load_reward("def compute_reward(s, a, n):\n    v = 1.0\n    return v, {'v': v}\n")
    assert "total 2 became 1" in same_values(original, changed, [(0.0, None, None)])
    assert same_values(original, original, [(0.0, None, None), (3.0, None, None)]) is None


def mjx_examples() -> list[str]:
    """The shipped examples whose task's env runs on MJX (read from the specs' TOML, no env built)."""
    found = []
    for path in sorted((ENVS_DIR / "examples").glob("*.py")):
        spec = ENVS_DIR / f"{path.stem.replace('_', '-')}.toml"
        if spec.is_file():
            data = tomllib.loads(spec.read_text())
            if supported(data["env"], data.get("env_kwargs") or None):
                found.append(path.stem)
    return found


def test_the_mjx_examples_are_found():
    assert {"hopper_hop", "ant_run", "reacher_reach", "inverted_double_pendulum_balance"} <= set(mjx_examples())


@pytest.mark.parametrize("example", [e for e in mjx_examples() if e != "inverted_double_pendulum_balance"])
def test_every_shipped_mjx_example_keeps_its_values_when_rewritten(example):
    """Each example that branches on values (all but the pendulum's) is rewritten, and keeps its values."""
    prepare_gate()
    source = (ENVS_DIR / "examples" / f"{example}.py").read_text()
    new = traceable_source(source)
    assert new is not None and "np.where" in new
    transitions, _ = collect_transitions(load_task(example.replace("_", "-")), 60, 30, 0)
    assert same_values(load_reward(source), load_reward(new), transitions) is None
