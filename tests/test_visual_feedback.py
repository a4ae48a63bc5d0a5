"""Visual feedback (`--visual-feedback`): frames of the best and worst evaluation episodes, rendered by the trusted
video worker, reach the analyzer's and the designer's requests as image parts, through a real HTTP round trip to
the loopback OpenAI-compatible server; with the option off, or a model that takes no images, none do."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rewardsmith.config import RunConfig
from rewardsmith.llm import get_model
from rewardsmith.stages.designer import Best, Designer
from rewardsmith.stages.env_description import describe
from rewardsmith.stages.visual_feedback import (
    FRAMES_PER_EPISODE,
    VISION_ENV,
    image_parts,
    record_frames,
    vision_refusal,
    with_images,
)
from rewardsmith.task import load_task
from rewardsmith.testing import serve_scripted

TASK = "inverted-double-pendulum-balance"
CODE = "def compute_reward(state, action, next_state):\n    return 1.0, {'alive': 1.0}"


@pytest.fixture
def trained(tmp_path: Path) -> Path:
    """A candidate folder with a (barely) trained policy, as the training worker leaves it."""
    from stable_baselines3 import PPO

    from rewardsmith.reward.wrappers import ApplyReward
    from rewardsmith.task import make_env

    env = ApplyReward(make_env(load_task(TASK)), source="native")
    model = PPO("MlpPolicy", env, seed=0, n_steps=64, batch_size=32)
    model.learn(64)
    cand = tmp_path / "cand"
    cand.mkdir()
    model.save(cand / "model.zip")
    return cand


def write_script(path: Path, lines: list[dict[str, str]]) -> Path:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def _images(content) -> list[str]:
    return [p["image_url"]["url"] for p in content if p.get("type") == "image_url"] if isinstance(content, list) else []


@pytest.mark.slow  # trains a policy for a few steps and renders in two worker processes
def test_frames_come_from_the_video_worker_at_each_episodes_seed(trained: Path) -> None:
    from rewardsmith.workers.executor import LocalExecutor

    episodes = {"best": {"seed": 3, "length": 12}, "worst": {"seed": 4, "length": 6}}
    frames = record_frames(load_task(TASK), trained, episodes, executor=LocalExecutor(workers=1))
    assert "problem" not in frames, frames
    for which in ("best", "worst"):
        assert len(frames[which]) == FRAMES_PER_EPISODE
        assert all((trained / name).read_bytes().startswith(b"\x89PNG") for name in frames[which])
    parts = image_parts(trained, frames)
    assert [p["type"] for p in parts].count("image_url") == len(frames["best"]) + len(frames["worst"])
    assert all(url.startswith("data:image/png;base64,") for url in _images(parts))
    first, second = (trained / frames["best"][k] for k in (0, -1))
    assert first.read_bytes() != second.read_bytes()  # the episode moves: start and end differ


def _best(images: list) -> Best:
    return Best("1.1", CODE, 0.4, None, "alive: mean 1.0 per step", images=images)


@pytest.mark.parametrize("visual", [True, False])
def test_the_designers_request_carries_the_frames_only_when_on(
    tmp_path: Path, api_env: None, monkeypatch: pytest.MonkeyPatch, visual: bool
) -> None:
    monkeypatch.setenv(VISION_ENV, "1")
    png = "data:image/png;base64," + "iVBORw0KGgo="  # the parts as `image_parts` builds them
    parts = [{"type": "text", "text": "Frames of the best evaluation episode, start to end:"}]
    parts += [{"type": "image_url", "image_url": {"url": png}}] * 2
    script = write_script(tmp_path / "s.jsonl", [{"role": "designer", "content": f"```python\n{CODE}\n```"}])
    spec = load_task(TASK)
    with serve_scripted(script) as server:
        model = get_model("openai/scripted", api_base=server.url, run_dir=tmp_path / "run", use_cache=False)
        assert vision_refusal(model) is None
        designer = Designer(model, spec, describe(spec))
        messages = designer.prompt(best=_best(parts if visual else []))
        designer.sample(messages, [1])
        sent = server.requests[0]["messages"][-1]["content"]
    assert _images(sent) == ([png, png] if visual else [])
    assert isinstance(sent, list) == visual and "alive: mean 1.0 per step" in json.dumps(sent)
    logged = json.loads(next((tmp_path / "run" / "llm").glob("*_designer.json")).read_text())
    assert "iVBORw0KGgo=" not in json.dumps(logged)  # the call log keeps a digest, not the image


def test_the_analyzers_request_carries_them_too(tmp_path: Path, api_env: None, monkeypatch: pytest.MonkeyPatch) -> None:
    from rewardsmith.stages.analyzer import analyzer_messages

    monkeypatch.setenv(VISION_ENV, "1")
    png = "data:image/png;base64,iVBORw0KGgo="
    script = write_script(tmp_path / "s.jsonl", [{"role": "analyzer", "content": "the pole falls"}])
    spec = load_task(TASK)
    with serve_scripted(script) as server:
        model = get_model("openai/scripted", api_base=server.url, use_cache=False)
        parts = [{"type": "image_url", "image_url": {"url": png}}]
        model.complete(analyzer_messages(spec, CODE, "fitness 0.4", describe(spec), parts), role="analyzer")
        assert _images(server.requests[0]["messages"][0]["content"]) == [png]


def test_a_model_that_takes_no_images_is_named_and_gets_none(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(VISION_ENV, raising=False)
    assert "takes no images" in (vision_refusal(get_model("local")) or "")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    assert "does not list 'openai/scripted' as accepting images" in (vision_refusal(get_model("openai/scripted")) or "")
    assert vision_refusal(get_model("gpt-4o")) is None  # litellm's own table says gpt-4o does
    assert with_images("text", []) == "text"


def test_the_option_is_offered_by_run_and_batch_and_off_by_default() -> None:
    from typer.testing import CliRunner

    from rewardsmith.cli import app

    assert RunConfig(task=TASK).visual_feedback is False
    assert RunConfig(task=TASK, visual_feedback=True).model_dump()["visual_feedback"] is True  # run.json's config
    for verb in ("run", "batch"):
        out = CliRunner().invoke(app, [verb, "--help"], env={"COLUMNS": "200"}).output
        assert "--visual-feedback" in out, verb
