"""Code extraction from messy LLM replies (fixtures in tests/data/extract_*)."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest

from rewardsmith.errors import ExtractionError, RewardFileError
from rewardsmith.stages.extract import dedupe, extract_reward_code

DATA = Path(__file__).parent / "data"

# fixture -> (text the code must contain, text it must not contain)
GOOD = {
    "extract_01_gpt_prose_fence.md": (["control_cost = 0.001"], ["Explanation", "Let me know"]),
    "extract_02_claude_helpers.md": (["import math", "TARGET_HEIGHT = 1.25", "def _upright_bonus"], ["Height term"]),
    "extract_04_split_blocks.md": (
        ["FORWARD_WEIGHT = 1.0", "def tolerance", "import numpy as np"],
        ["UNUSED_SCALE", "print(", "np.zeros(11)"],
    ),
    "extract_05_no_fences.md": (['"alive": alive'], ["The reward function below", "PPO"]),
    "extract_07_json_wrapped.json": (['"energy": energy'], ["reasoning"]),
    "extract_08_main_demo.md": (['"posture": posture'], ["__main__", "print(", "np.ones(11)", "Example usage"]),
    "extract_09_repl.md": (['return lift, {"lift": lift}'], [">>>", "(1.0,"]),
    "extract_10_indented_list.md": (["def compute_reward", "np.linalg.norm"], ["Train with PPO"]),
    "extract_11_tilde_fence.md": (["math.cos"], ["~~~"]),
    "extract_12_crlf_tabs.md": (["bonus = 1.0"], ["\r"]),
    "extract_13_two_versions.md": (["upright"], []),
    "extract_15_missing_import.md": (["import numpy as np", "import math"], []),
    "extract_18_json_fence.md": (["np.clip"], ['"code"']),
    "extract_19_bash_then_python.md": (['"balance": balance'], ["pip install", "Output"]),
    "extract_20_inline_prose_no_fence.md": (["WEIGHT = 2.0", "def smooth"], ["Reward design", "Hope this", "Helper for"]),
    "extract_21_helper_constants.md": (
        ["TERM_WEIGHTS = _normalised([2.0, 1.0, 1.0])", "LOW, HIGH = _height_band(1.25, 0.5)", "DECAY = math.exp"],
        ["example =", "checks =", "print("],
    ),
}

BAD = {
    "extract_03_truncated.md": "code is truncated",
    "extract_06_wrong_name.md": "no function named compute_reward; found: compute_rew, helper",
    "extract_14_refusal.md": "no Python code found",
    "extract_16_syntax_error.md": "code has a syntax error: invalid syntax (SyntaxError at line 4",
    "extract_17_class_method.md": "found: RewardFunction.compute_reward",
}


def _run(code: str) -> tuple[float, dict[str, float]]:
    namespace: dict = {}
    exec(compile(code, "reward.py", "exec"), namespace)
    state, next_state = np.full(11, 0.1), np.full(11, 0.2)
    return namespace["compute_reward"](state, np.full(3, 0.5), next_state)


def test_every_fixture_is_covered() -> None:
    assert {p.name for p in DATA.glob("extract_*")} == set(GOOD) | set(BAD)


@pytest.mark.parametrize("name", sorted(GOOD))
def test_extracts_runnable_reward(name: str) -> None:
    code = extract_reward_code((DATA / name).read_text(encoding="utf-8", errors="strict"))
    must, must_not = GOOD[name]
    for text in must:
        assert text in code, f"{text!r} missing from:\n{code}"
    for text in must_not:
        assert text not in code, f"{text!r} left in:\n{code}"
    total, components = _run(code)
    assert isinstance(float(total), float) and isinstance(components, dict)


@pytest.mark.parametrize("name", sorted(BAD))
def test_reports_why_nothing_usable(name: str) -> None:
    with pytest.raises(ExtractionError) as info:
        extract_reward_code((DATA / name).read_text(encoding="utf-8"))
    assert BAD[name] in str(info.value)
    assert isinstance(info.value, RewardFileError)


def test_crlf_fixture_really_has_crlf_and_tabs() -> None:
    raw = (DATA / "extract_12_crlf_tabs.md").read_bytes()
    assert b"\r\n" in raw and b"\t" in raw


def test_two_versions_picks_the_last() -> None:
    code = extract_reward_code((DATA / "extract_13_two_versions.md").read_text())
    assert code.count("def compute_reward") == 1 and "x_progress" in code


def test_truncated_reports_the_line() -> None:
    with pytest.raises(ExtractionError, match=r"SyntaxError at line 9 of 9"):
        extract_reward_code((DATA / "extract_03_truncated.md").read_text())


def test_custom_function_name() -> None:
    text = "```python\ndef fitness(info):\n    return 1.0\n```"
    assert extract_reward_code(text, function_name="fitness").startswith("def fitness")
    with pytest.raises(ExtractionError, match="no function named compute_reward; found: fitness"):
        extract_reward_code(text)


def test_module_docstring_and_comments_are_kept() -> None:
    text = '```python\n"""Reward for Hopper."""\n# weights tuned by hand\nW = 2.0\n\ndef compute_reward(s, a, ns):\n    return W, {"w": W}\n```'
    code = extract_reward_code(text)
    assert code.startswith('"""Reward for Hopper."""') and "# weights tuned by hand" in code
    assert ast.parse(code).body[1].targets[0].id == "W"


def test_dedupe_ignores_whitespace_and_comments() -> None:
    a = "def compute_reward(s, a, ns):\n    return 1.0, {}\n"
    b = "def compute_reward(s, a, ns):   # same\n\n    return 1.0, {}  # still the same\n"
    c = "def compute_reward(s, a, ns):\n    return 2.0, {}\n"
    assert dedupe([a, b, c, a, "not python ("]) == [a, c, "not python ("]
