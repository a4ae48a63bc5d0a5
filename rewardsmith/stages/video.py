"""Short policy videos: rendered in a sandboxed worker, encoded in the parent.

The policy in `model.zip` was written by an untrusted worker, and loading it unpickles, so it is only
ever loaded in a locked-down worker (`rewardsmith.workers.main video JOB`). The worker builds the plain task env
(no reward file needed) with `render_mode="rgb_array"`, renders one frame (the GL context must exist
before lockdown), enters the sandbox, loads the policy, rolls out one deterministic episode and writes
every k-th frame to `video/frames.npy` (uint8, no pickle). The sandbox forbids exec, so the parent
validates that array and encodes `video.mp4` (H.264 through imageio-ffmpeg), or an animated GIF with
Pillow when ffmpeg is missing.

    path = record_video(spec, run_dir / "iter_1" / "cand_2")   # -> .../cand_2/video.mp4

When it cannot render, it raises `VideoError` with one line that says why and what to do (`why_not`): no GL library
for MuJoCo on this machine, a GL backend that needs a display, a missing pygame, a policy the worker could not load.
"""

from __future__ import annotations

import ctypes.util
import glob
import logging
import os
from pathlib import Path

import numpy as np

from rewardsmith.errors import RewardsmithError
from rewardsmith.run_folder.candidate import candidate_at
from rewardsmith.run_folder.names import FRAMES_FILE, MODEL_FILE, VIDEO_DIR, VIDEO_NAMES
from rewardsmith.task import TaskSpec
from rewardsmith.workers.executor import Executor
from rewardsmith.workers.job import WorkerJob

log = logging.getLogger(__name__)

MAX_FRAMES = 300
WHOLE_EPISODE_FRAMES = 150
"""Frames kept from a whole episode by default: every k-th step, so the file and the render time stay small."""
MAX_FRAME_BYTES = 64 * 1024 * 1024
RENDER_ERROR = "render:"


class VideoError(RewardsmithError):
    """A video could not be recorded: `reason` is one line saying why and what to do; the message adds the video
    worker's log when there is one."""

    def __init__(self, reason: str, log_path: Path | None = None) -> None:
        super().__init__(f"{reason} (log: {log_path})" if log_path else reason)
        self.reason = reason


# -- parent side -------------------------------------------------------------------------------------------


def gl_backends() -> list[str]:
    """MUJOCO_GL backends to try: the user's choice if set, else EGL (with a GPU device) then OSMesa."""
    if os.environ.get("MUJOCO_GL"):
        return [os.environ["MUJOCO_GL"]]
    found = []
    if ctypes.util.find_library("EGL") and (glob.glob("/dev/dri/renderD*") or os.path.exists("/dev/nvidiactl")):
        found.append("egl")
    if ctypes.util.find_library("OSMesa"):
        found.append("osmesa")
    return found or ["egl"]


def find_video(cand_dir: Path) -> Path | None:
    """The candidate's encoded video, if one was recorded (in a run's candidate folder: by the parent, with its
    proof; a planted video is never found)."""
    cand = candidate_at(cand_dir)
    if cand is not None:
        return cand.video()
    return next((Path(cand_dir) / n for n in VIDEO_NAMES if (Path(cand_dir) / n).is_file()), None)


def episode_limit(spec: TaskSpec) -> int:
    """The env's time limit in steps (MAX_FRAMES when it has none or cannot be built here)."""
    from rewardsmith.task import make_env

    try:
        env = make_env(spec)
    except Exception:  # noqa: BLE001 - a video is optional; the short default still works
        return MAX_FRAMES
    try:
        return int(getattr(env.spec, "max_episode_steps", None) or MAX_FRAMES)
    finally:
        env.close()


def record_video(
    spec: TaskSpec,
    cand_dir: Path,
    *,
    executor: Executor,
    seed: int = 0,
    max_steps: int | None = None,
    every: int | None = None,
    width: int = 320,
    height: int = 240,
) -> Path:
    """Render the policy of a trained candidate folder (its `model.zip`) to `video.mp4` beside it.

    By default the video shows one whole episode (up to the env's time limit), keeping every k-th frame so that
    about WHOLE_EPISODE_FRAMES frames are rendered and encoded (small file, short render); `max_steps`/`every`
    override that.

    Runs the rollout in a sandboxed worker (a job of `executor`) and encodes in this process. Returns the video
    path; raises `VideoError` (one line: why, and the worker's log `<cand_dir>/video/worker.log`) when the folder
    has no policy or rendering failed.
    """
    cand_dir = Path(cand_dir).resolve()
    model = cand_dir / MODEL_FILE
    if not model.is_file():
        raise VideoError(f"no video: {cand_dir} holds no policy ({MODEL_FILE})")
    if max_steps is None:
        max_steps = episode_limit(spec)
    if every is None:  # a whole episode in about as many frames as the old 300-step clip (rendering dominates)
        every = max(2, -(-max_steps // WHOLE_EPISODE_FRAMES))
    rendered = render_frames(
        spec,
        cand_dir,
        cand_dir / VIDEO_DIR,
        executor=executor,
        seed=seed,
        max_steps=max_steps,
        every=every,
        width=width,
        height=height,
    )
    try:
        path = encode_video(rendered[0], cand_dir, fps=rendered[1])
        if (cand := candidate_at(cand_dir)) is not None:
            cand.sign(path)
    except RewardsmithError as e:
        raise VideoError(f"no video: {' '.join(str(e).split())}") from None
    return path


def render_frames(
    spec: TaskSpec,
    cand_dir: Path,
    work: Path,
    *,
    executor: Executor,
    seed: int,
    max_steps: int,
    every: int,
    width: int = 320,
    height: int = 240,
) -> tuple[np.ndarray, float]:
    """One deterministic episode of the candidate's policy (`cand_dir/model.zip`) from `reset(seed)`, rendered by
    a sandboxed video worker into `work` (every `every`-th step, up to `max_steps`): the checked frames and their
    rate; raises `VideoError` (one line: why; the worker's log stays in `work`) when rendering failed."""
    if spec.source is None:
        raise RewardsmithError(f"task '{spec.name}' has no spec file, which a video worker needs")
    result = None
    errors: list[str] = []
    for gl in gl_backends():
        job = WorkerJob(
            mode="video",
            task_path=spec.source,
            reward_path=None,
            reward_source="native",
            out_dir=work,
            seed=seed,
            timesteps=max_steps,
            options={
                "model_path": str(Path(cand_dir).resolve() / MODEL_FILE),
                "gl": gl,
                "max_steps": max_steps,
                "every": every,
                "width": width,
                "height": height,
                "timeout_s": 240,
                "stall_timeout_s": 120,
            },
        )
        job.sandbox.extra_read_paths = [Path(cand_dir).resolve()]
        result = executor.submit(job).result()
        if result.ok or not result.error.startswith(RENDER_ERROR):
            break
        errors.append(result.error)
    if result is None or not result.ok:
        reason = why_not(result.error if result else "", errors)
        log.warning("%s: %s", cand_dir, reason)
        raise VideoError(reason, work / "worker.log")
    try:
        return load_frames(work / FRAMES_FILE), float(result.summary.get("fps") or 10)
    except RewardsmithError as e:
        raise VideoError(f"no video: {' '.join(str(e).split())}") from None
    finally:
        (work / FRAMES_FILE).unlink(missing_ok=True)


GL_HINT = (
    "MuJoCo renders on a CPU with OSMesa: install libosmesa6 (Debian/Ubuntu) or set MUJOCO_GL=egl on a machine with "
    "a GPU"
)


def why_not(error: str, render_errors: list[str]) -> str:
    """One line saying why no video was recorded, from the video worker's error (`error`, the last try) and each GL
    backend's render error, and what to do about it."""
    seen = " ".join(render_errors + [error])
    if "No module named 'pygame'" in seen:
        why = "this env renders with pygame, which is not installed: pip install pygame"
    elif "DISPLAY" in seen or "MUJOCO_GL=glfw" in seen:
        why = f"MUJOCO_GL=glfw needs a display; unset MUJOCO_GL, or set it to osmesa (CPU) or egl (GPU). {GL_HINT}"
    elif render_errors and not (ctypes.util.find_library("OSMesa") or ctypes.util.find_library("EGL")):
        why = f"no OpenGL library for offscreen rendering on this machine (neither OSMesa nor EGL). {GL_HINT}"
    elif render_errors and len(render_errors) == len(gl_backends()):
        tried = ", ".join(e.split(":", 2)[1].strip() for e in render_errors)
        why = f"every GL backend failed to render ({tried}): {first_line(render_errors[-1])}. {GL_HINT}"
    else:
        why = f"the video worker failed: {first_line(error)}"
    return f"no video: {why}"


def first_line(error: str) -> str:
    """The first line of an error, without the worker's `render:` prefix, cut to 200 characters."""
    text = error.removeprefix(RENDER_ERROR).strip()
    return (text.splitlines() or [""])[0][:200]


def load_frames(path: Path) -> np.ndarray:
    """Frames written by a worker, checked: (n, h, w, 3) uint8, n <= MAX_FRAMES + 1, bounded size, no pickle."""
    try:
        if path.stat().st_size > MAX_FRAME_BYTES:
            raise RewardsmithError(f"{path}: {path.stat().st_size:,} bytes is more than a short video needs")
        frames = np.load(path, allow_pickle=False)
    except (OSError, ValueError) as e:
        raise RewardsmithError(f"{path}: unreadable frames ({e})") from None
    if (
        frames.dtype != np.uint8
        or frames.ndim != 4
        or frames.shape[-1] != 3
        or not 0 < frames.shape[0] <= MAX_FRAMES + 1
        or not (16 <= frames.shape[1] <= 1080 and 16 <= frames.shape[2] <= 1920)
    ):
        raise RewardsmithError(
            f"{path}: expected (frames, height, width, 3) uint8 frames; got {frames.shape} {frames.dtype}"
        )
    return frames


def encode_video(frames: np.ndarray, folder: Path, *, fps: float) -> Path:
    """Write `video.mp4` (H.264, yuv420p) with ffmpeg, or `video.gif` when ffmpeg is unavailable."""
    frames = frames[:, : frames.shape[1] // 2 * 2, : frames.shape[2] // 2 * 2]  # H.264 wants even sizes
    target = Path(folder) / "video.mp4"
    try:
        import imageio.v2 as imageio
        import imageio_ffmpeg

        imageio_ffmpeg.get_ffmpeg_exe()
        tmp = target.with_name(f".video.{os.getpid()}.mp4")
        with imageio.get_writer(
            tmp,
            format="FFMPEG",
            mode="I",
            fps=fps,
            codec="libx264",
            quality=None,
            macro_block_size=1,
            ffmpeg_log_level="error",
            output_params=["-crf", "30", "-preset", "veryfast", "-pix_fmt", "yuv420p", "-movflags", "+faststart"],
        ) as writer:
            for frame in frames:
                writer.append_data(frame)  # type: ignore[attr-defined]
        os.replace(tmp, target)
        return target
    except (ImportError, RuntimeError, OSError) as e:
        log.info("ffmpeg unavailable (%s); writing an animated GIF instead", e)
    return encode_gif(frames, Path(folder) / "video.gif", fps=fps)


def encode_gif(frames: np.ndarray, target: Path, *, fps: float) -> Path:
    """An animated GIF of the frames (every other frame, halved size) via Pillow."""
    from PIL import Image

    images = [Image.fromarray(f).reduce(2) for f in frames[::2]]
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    images[0].save(tmp, format="GIF", save_all=True, append_images=images[1:], duration=int(2000 / fps), loop=0)
    os.replace(tmp, target)
    return target
