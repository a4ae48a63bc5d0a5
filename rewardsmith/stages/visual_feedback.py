"""Visual feedback (opt-in, `--visual-feedback`; Video2Reward's frames of the learned behaviour): a few frames of a
trained candidate's best and worst evaluation episodes go to the analyzer's request and, for the best candidate,
to the designer's next request, as image content parts.

The frames come from the trusted side only: the sandboxed video worker replays the policy from each episode's own
evaluation seed (`stages.video.render_frames`), the parent picks evenly spaced frames, writes them as PNG files
under the candidate's `visual/` folder and signs them; only signed files are ever sent. Reward code never touches
them. Frames are sent only where the model accepts images: litellm's `supports_vision`, or
`REWARDSMITH_LLM_VISION=1` for a self-hosted server litellm does not know.
"""

from __future__ import annotations

import base64
import io
import logging
import os
from pathlib import Path
from typing import Any

import numpy as np

from rewardsmith.llm import Model
from rewardsmith.run_folder.candidate import candidate_at
from rewardsmith.task import TaskSpec
from rewardsmith.workers.executor import Executor

log = logging.getLogger(__name__)

VISUAL_DIR = "visual"
FRAMES_PER_EPISODE = 3
WIDTH, HEIGHT = 256, 192
MAX_PNG_BYTES = 2 * 2**20
VISION_ENV = "REWARDSMITH_LLM_VISION"


def vision_refusal(model: Model | None) -> str | None:
    """Why `model` cannot be sent images (one line), or None when it can."""
    if model is None:
        return "no model is configured"
    if model.kind != "api":
        return f"the {model.kind} model '{model.name}' takes no images"
    if os.environ.get(VISION_ENV) == "1":
        return None
    try:
        import litellm

        if litellm.supports_vision(model=model.name):
            return None
    except Exception:  # noqa: BLE001 - an unknown name or an old litellm: litellm cannot say it does
        pass
    return (
        f"litellm does not list '{model.name}' as accepting images (for a self-hosted vision model, set {VISION_ENV}=1)"
    )


def _png(frame: np.ndarray) -> bytes:
    from PIL import Image

    out = io.BytesIO()
    Image.fromarray(frame).save(out, format="PNG", optimize=True)
    return out.getvalue()


def record_frames(spec: TaskSpec, cand_dir: Path, episodes: dict[str, Any], *, executor: Executor) -> dict[str, Any]:
    """Render `FRAMES_PER_EPISODE` evenly spaced frames of the best and worst evaluation episodes (`episodes`:
    the analysis's best/worst heads, with their seeds and lengths) into `cand_dir/visual/`, signed in a run;
    returns {"best": [file names], "worst": [...]}, or {"problem": why not}."""
    from rewardsmith.stages.video import VideoError, render_frames

    cand_dir = Path(cand_dir)
    cand = candidate_at(cand_dir)
    found: dict[str, Any] = {}
    for which in ("best", "worst"):
        head = episodes.get(which) or {}
        if head.get("seed") is None or not head.get("length"):
            return {"problem": "the evaluation episodes carry no seeds to replay"}
        steps = int(head["length"])
        every = max(1, -(-steps // FRAMES_PER_EPISODE))
        try:
            rendered = render_frames(
                spec,
                cand_dir,
                cand_dir / VISUAL_DIR / which,
                executor=executor,
                seed=int(head["seed"]),
                max_steps=steps,
                every=every,
                width=WIDTH,
                height=HEIGHT,
            )
        except VideoError as e:
            return {"problem": f"{e} (see {VISUAL_DIR}/{which}/worker.log)"}
        frames = rendered[0]
        picks = np.linspace(0, len(frames) - 1, num=min(FRAMES_PER_EPISODE, len(frames))).round().astype(int)
        names = []
        for k, i in enumerate(dict.fromkeys(picks.tolist())):
            name = f"{VISUAL_DIR}/{which}_{k}.png"
            (cand_dir / name).write_bytes(_png(frames[i]))
            if cand is not None:
                cand.sign(cand_dir / name)
            names.append(name)
        found[which] = names
    return found


def image_parts(cand_dir: Path, frames: dict[str, Any] | None) -> list[dict[str, Any]]:
    """The recorded frames as image content parts (each after a text part naming it), reading only the files
    the parent signed; [] when there are none."""
    if not frames or "problem" in frames:
        return []
    cand = candidate_at(Path(cand_dir))
    parts: list[dict[str, Any]] = []
    for which in ("best", "worst"):
        names = frames.get(which) or []
        images = []
        for name in names:
            path = Path(cand_dir) / name
            data = cand.verified(path, MAX_PNG_BYTES) if cand is not None else path.read_bytes()
            if data is not None:
                url = "data:image/png;base64," + base64.b64encode(data).decode("ascii")
                images.append({"type": "image_url", "image_url": {"url": url}})
        if images:
            parts.append({"type": "text", "text": f"Frames of the {which} evaluation episode, start to end:"})
            parts += images
    return parts


def with_images(text: str, parts: list[dict[str, Any]]) -> str | list[dict[str, Any]]:
    """A message content: the text alone, or the text followed by the image parts."""
    return [{"type": "text", "text": text}, *parts] if parts else text
