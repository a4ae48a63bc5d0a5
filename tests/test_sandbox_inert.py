"""Terminal output is inert: text from a candidate or an LLM reply never reaches the terminal as control
sequences or rich markup (`rewardsmith check`, `train`, the live progress lines)."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.console import Console

from rewardsmith.formatting import inert
from rewardsmith.search.live import describe_state

HOSTILE = Path(__file__).with_name("hostile")
TASK = "inverted-double-pendulum-balance"
PAYLOAD = "\x1b]52;c;aGk=\x07\x1b[2J\x1b]8;;https://evil.example/\x1b\\x\x1b]8;;\x1b\\[link=https://e.x]m[/link]\x9b\u202e"


def _clean(text: str) -> None:
    assert not any(ch in text for ch in "\x1b\x07\x9b\u202e"), repr(text)
    assert "https://e.x" not in text or "[link=https://e.x]" in text  # markup printed as written, never applied


def test_inert_escapes_controls_and_markup() -> None:
    safe = inert(PAYLOAD)
    _clean(safe)
    assert "\\x1b]52" in safe and "\\x07" in safe and "\\u202e" in safe
    console = Console(record=True, width=300, force_terminal=True, color_system=None)
    console.print(safe)
    assert "[link=https://e.x]m[/link]" in console.export_text()
    assert inert("line one\n\tline two") == "line one\n\tline two"
    assert inert("[x]", markup=False) == "[x]"


def test_progress_lines_are_inert() -> None:
    _clean(describe_state("rejected", {"reason": PAYLOAD}))


@pytest.mark.parametrize("program", ["terminal_escapes_exception", "terminal_escapes_component"])
def test_check_prints_candidate_text_inert(cli, tiny_spec, tmp_path: Path, program: str) -> None:
    reward = tmp_path / "reward.py"
    reward.write_text((HOSTILE / f"{program}.py").read_text())
    code, out, err = cli("check", tiny_spec(TASK), reward, "--timeout", "30")
    _clean(out + err)
    assert code == (1 if program.endswith("exception") else 0), out + err
    if program.endswith("exception"):
        assert "\\x1b]52" in out + err  # the payload is shown, escaped
    else:  # a component name is cleaned where it is read (rewardsmith.files.clean_name): shown, capped, harmless
        assert "__52_c_cm0gLXJmIH4" in out + err


def test_train_prints_a_candidate_exception_inert(cli, tiny_spec, tmp_path: Path) -> None:
    reward = tmp_path / "reward.py"
    reward.write_text((HOSTILE / "terminal_escapes_exception.py").read_text())
    code, out, err = cli("train", tiny_spec(TASK, timesteps=256), reward, "--out", tmp_path / "t")
    assert code != 0
    _clean(out + err)
    assert "FAKE OK" in out + err and "[bold red]FAKE OK[/]" in (out + err).replace("\\[", "[")
