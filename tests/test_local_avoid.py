"""The offline model never hands back code an earlier candidate of the run already had: the designer tells it every
earlier code (all iterations, all samples; a round's samples asked in order), and a repeated reply becomes the next
ready-made one, saying which it repeated."""

from __future__ import annotations

import json
from typing import Any

import pytest

from rewardsmith.config import RunConfig
from rewardsmith.llm import engine
from rewardsmith.llm.code_identity import same_code
from rewardsmith.llm.local import LocalModel, ready_made, task_names
from rewardsmith.llm.template import TEMPLATE_MARK
from rewardsmith.search.loop import run as run_search
from rewardsmith.stages.designer import Best, Designer
from rewardsmith.stages.env_description import describe
from rewardsmith.stages.extract import extract_reward_code
from rewardsmith.task import load_task

IDP = "inverted-double-pendulum-balance"


@pytest.fixture
def copying_engine(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The llama.cpp engine replaced by one that copies the example it is shown (what the tiny model does on IDP,
    the README's first command); returns the seeds it was asked with."""
    seeds: list[str] = []

    def complete(prompt: str, **kwargs: Any) -> dict[str, Any]:
        seeds.append(kwargs["seed"])
        example = prompt.split("```python\n", 1)[1].split("```", 1)[0]
        copied = example.split('components["', 1)[1].rsplit("\n    total", 1)[0]
        return {"text": copied, "prompt_tokens": 10, "completion_tokens": 5, "finish_reason": "stop"}

    monkeypatch.setattr(engine, "complete", complete)
    monkeypatch.setattr(engine, "tokens", lambda text: len(text) // 4)
    return seeds


def test_a_second_iteration_never_repeats_a_first_iteration_candidate(copying_engine, tmp_path):
    """The README's quick start (IDP, 2 iterations x 2 samples): sample 2.1 handed back 1.2's code, because the model
    saw only the best's code. Told the whole run's codes, the four candidates are four different programs."""
    spec = load_task(IDP)
    designer = Designer(LocalModel(run_dir=tmp_path, use_cache=False), spec, describe(spec))
    first = designer.sample(designer.prompt(), [1000, 1001])
    best = Best("1.1", first[0].code or "", 0.1, None, "tip height rose", first[0].text)
    tried = [d.code for d in first if d.code]
    second = designer.sample(designer.prompt(best=best), [2000, 2001], avoid=tried)
    codes = [d.code or "" for d in [*first, *second]]
    assert all(code.startswith(TEMPLATE_MARK) for code in codes)
    assert not any(same_code(a, b) for i, a in enumerate(codes) for b in codes[i + 1 :]), codes
    # each reply says what kind it is; the copied replies say what they repeated
    assert "repeated code already in this conversation" in second[1].text or "earlier candidate" in second[1].text
    assert "Template, not designed by a model" in second[0].text and "already tried are skipped" in second[0].text
    # a repair of 2.2 must not bring back any of them either: with all four ready-made replies tried and a model that
    # only copies, it hands back no code, and says why
    repaired = designer.repair(second[1], "NameError: x", 2001)
    assert repaired.code is None and "No new code" in repaired.text


def test_the_earlier_codes_are_part_of_the_cache_key(copying_engine, tmp_path):
    """The same request told other earlier codes is another request: a cached answer must not bring a repeat back."""
    spec = load_task(IDP)
    messages = Designer(None, spec, describe(spec)).prompt()
    model = LocalModel(run_dir=tmp_path, use_cache=None)
    plain = model.complete(messages, role="designer", sample=1000)
    told = model.complete(messages, role="designer", sample=1000, avoid=[extract_reward_code(plain.text)])
    assert not told.cached and not same_code(extract_reward_code(told.text), extract_reward_code(plain.text))


def test_with_nothing_ready_made_left_the_model_is_asked_again(copying_engine, tmp_path):
    spec = load_task(IDP)
    messages = Designer(None, spec, describe(spec)).prompt()
    model = LocalModel(run_dir=tmp_path, use_cache=False)
    every = [code for code, _ in ready_made(task_names(messages), [])]
    reply = model.complete(messages, role="designer", sample=1001, avoid=every).text
    assert len(copying_engine) == 3  # the first ask and two more, each with its own seed
    assert len(set(copying_engine)) == 3 and "```" not in reply and "tried every ready-made reply" in reply


@pytest.mark.slow
def test_a_two_iteration_local_run_has_no_duplicate_candidate(copying_engine, tiny_spec, tmp_path, monkeypatch):
    """The whole loop (design round, run folder, repairs) with the copying model: no candidate is a [dedupe]."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    config = RunConfig(
        task=str(tiny_spec(IDP, timesteps=1024, eval_episodes=3)),
        model="local",
        iterations=2,
        samples=2,
        iteration_retries=0,
        workers=1,
        final_seeds=0,
        out=tmp_path / "run",
    )
    run_search(config)
    run = tmp_path / "run"
    codes = [(p.parent.name, p.read_text()) for p in sorted(run.glob("iter_*/cand_*/attempt_*.py"))]
    findings = [
        f for p in run.glob("iter_*/cand_*/attempts.json") for a in json.loads(p.read_text()) for f in a["findings"]
    ]
    assert len(codes) >= 4 and not any(f.startswith("[dedupe]") for f in findings), findings
    assert not any(same_code(a, b) for i, (_, a) in enumerate(codes) for _, b in codes[i + 1 :])
