"""Every shipped task renders a policy video, or says in one line why not (issue 26: a Pendulum video failed)."""

from __future__ import annotations

import ctypes.util
import json
from pathlib import Path

import numpy as np
import pytest

from rewardsmith.reward.wrappers import ApplyReward
from rewardsmith.stages.video import GL_HINT, VideoError, record_video, why_not
from rewardsmith.task import list_tasks, load_task, make_env
from rewardsmith.workers.executor import LocalExecutor

EXECUTOR = LocalExecutor(workers=2)
GL = bool(ctypes.util.find_library("OSMesa") or ctypes.util.find_library("EGL"))


def untrained_policy(name: str, folder: Path) -> Path:
    """An untrained policy of the task's algorithm and observation layout, saved as the search saves one."""
    from stable_baselines3 import PPO, SAC

    spec = load_task(name)
    env = ApplyReward(make_env(spec), source="native")
    if spec.train.algo == "PPO":
        model = PPO("MlpPolicy", env, seed=0, n_steps=64, batch_size=32)
    else:
        model = SAC("MlpPolicy", env, seed=0, buffer_size=100, learning_starts=10)
    folder.mkdir()
    model.save(folder / "model.zip")
    env.close()
    return folder


def test_why_not_is_one_line_that_says_what_to_do():
    glfw = "render: MUJOCO_GL=glfw: FatalError: an OpenGL platform library has not been loaded into this process"
    assert "MUJOCO_GL=glfw needs a display" in why_not(glfw, [glfw])
    pygame = "render: MUJOCO_GL=osmesa: DependencyNotInstalled: No module named 'pygame'"
    assert "pip install pygame" in why_not(pygame, [pygame])
    worker = "timed out after 240 s and was killed"
    assert why_not(worker, []) == "no video: the video worker failed: timed out after 240 s and was killed"
    for line in (why_not(glfw, [glfw]), why_not(pygame, [pygame]), why_not("boom\nTraceback ...", [])):
        assert "\n" not in line and line.startswith("no video: ")
    assert str(VideoError("no video: x", Path("/r/video/worker.log"))) == "no video: x (log: /r/video/worker.log)"


@pytest.mark.slow
@pytest.mark.parametrize("name", [spec.name for spec in list_tasks()])
def test_every_shipped_task_renders_or_says_why_not(tmp_path: Path, name: str) -> None:
    cand = untrained_policy(name, tmp_path / "cand")
    try:
        video = record_video(load_task(name), cand, max_steps=10, every=2, executor=EXECUTOR)
    except VideoError as e:
        assert "\n" not in str(e) and str(e).startswith("no video: "), e
        assert not GL and GL_HINT in str(e), f"{name}: {e}"  # with a GL library here, every task must render
        return
    assert video.is_file() and video.stat().st_size > 0


@pytest.mark.slow
def test_a_gl_backend_that_needs_a_display_is_named(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("MUJOCO_GL", "glfw")
    monkeypatch.delenv("DISPLAY", raising=False)
    cand = untrained_policy("inverted-double-pendulum-balance", tmp_path / "cand")
    with pytest.raises(VideoError, match="MUJOCO_GL=glfw needs a display") as caught:
        record_video(load_task("inverted-double-pendulum-balance"), cand, max_steps=10, executor=EXECUTOR)
    assert "\n" not in str(caught.value) and str(caught.value).endswith("video/worker.log)")


@pytest.mark.slow
def test_a_whole_classic_control_episode_fits_a_short_video(tmp_path: Path) -> None:
    """Acrobot renders 500 x 500 frames at its own size: a run's video (the whole 500-step episode) once came to 94 MB
    of frames and was refused as "more than a short video needs"; the worker now keeps every k-th pixel."""
    from rewardsmith.stages.video import episode_limit
    from rewardsmith.workers.video import fit_frame

    assert fit_frame(np.zeros((500, 500, 3)), 320, 240).shape == (167, 167, 3)
    assert fit_frame(np.zeros((400, 600, 3)), 320, 240).shape == (200, 300, 3)
    assert fit_frame(np.zeros((240, 320, 3)), 320, 240).shape == (240, 320, 3)  # MuJoCo's own size: untouched
    spec = load_task("acrobot-swing-up")
    cand = untrained_policy("acrobot-swing-up", tmp_path / "cand")
    video = record_video(spec, cand, max_steps=episode_limit(spec), every=4, executor=EXECUTOR)
    summary = json.loads((cand / "video" / "summary.json").read_text())
    assert video.is_file() and summary["frames"] > 100  # the untrained policy never reaches the bar: 500 steps
