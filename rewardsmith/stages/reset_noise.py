"""What an env's `reset()` draws at random, measured: for an env whose reset noise this tool does not know from its
source (an Adroit task, a user's own MuJoCo env), the description says what changed over a few resets instead of
"unknown".

Over the resets (seeds 0 to N-1, through the unwrapped env), what took more than one value: the state (`qpos`,
`qvel`), and the placements the env may move in the model itself (a body's `body_pos`, a site's `site_pos`, a mocap
body's position): Adroit's hammer task, for one, raises the nail board by editing `body_pos`. The ranges are those
seen, not the env's own bounds, and the description says so.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from rewardsmith.reward.state import StateSchema
from rewardsmith.stages.obs_labels import FREE_QPOS, FREE_QVEL, fmt, slot_labels

RESETS = 8
"""Resets measured (seeds 0 to 7): enough to see what moves, few enough to cost well under a second."""
_AXES = "xyz"


@dataclass
class ResetDraws:
    """What differed between the measured resets: state slots as (index, name, low, high), and model placements
    as (what, frame, [(axis, low, high), ...]), e.g. ("body nail_board", "world", [("z", 0.11, 0.24)])."""

    resets: int
    qpos: list[tuple[int, str, float, float]] = field(default_factory=list)
    qvel: list[tuple[int, str, float, float]] = field(default_factory=list)
    placements: list[tuple[str, str, list[tuple[str, float, float]]]] = field(default_factory=list)


def measure_resets(base, schema: StateSchema, seed: int, resets: int = RESETS) -> ResetDraws:
    """Reset the unwrapped MuJoCo env `base` with seeds 0 to `resets`-1 and keep what differed; then reset it
    with `seed` again, so the caller's env is as it left it."""
    model, data = base.model, base.data
    seen: dict[str, list[np.ndarray]] = {"qpos": [], "qvel": [], "body": [], "site": [], "mocap": []}
    try:
        for s in range(resets):
            base.reset(seed=s)
            for kind, values in (
                ("qpos", data.qpos),
                ("qvel", data.qvel),
                ("body", model.body_pos),
                ("site", model.site_pos),
                ("mocap", data.mocap_pos),
            ):
                seen[kind].append(np.array(values))
    finally:
        base.reset(seed=seed)
    draws = ResetDraws(resets)
    draws.qpos = _varied(slot_labels(schema, FREE_QPOS, "qpos"), np.stack(seen["qpos"]))
    draws.qvel = _varied(slot_labels(schema, FREE_QVEL, "qvel"), np.stack(seen["qvel"]))
    names = schema.body_names
    frames = {
        "body": [(f"body {n}", names[model.body_parentid[b]]) for b, n in enumerate(names)],
        "site": [(f"site {n}", names[model.site_bodyid[i]]) for i, n in enumerate(schema.site_names)],
        "mocap": [
            (f"mocap body {names[b]}", names[0])
            for _, b in sorted(
                (int(model.body_mocapid[b]), b) for b in range(model.nbody) if model.body_mocapid[b] >= 0
            )
        ],
    }
    for kind, placed in frames.items():
        values = np.stack(seen[kind])  # (resets, n, 3)
        for i, (what, frame) in enumerate(placed):
            low, high = values[:, i].min(axis=0), values[:, i].max(axis=0)
            axes = [(_AXES[a], float(low[a]), float(high[a])) for a in range(3) if high[a] - low[a] > 1e-9]
            if axes:
                draws.placements.append((what, "world" if frame == names[0] else f"{frame}'s", axes))
    return draws


def _varied(names: list[str], values: np.ndarray) -> list[tuple[int, str, float, float]]:
    """(index, name, low, high) of every column of `values` (resets x slots) not the same in every reset."""
    low, high = values.min(axis=0), values.max(axis=0)
    return [(int(i), names[i], float(low[i]), float(high[i])) for i in np.flatnonzero(high - low > 1e-12)]


def _range(low: float, high: float) -> str:
    return f"[{fmt(round(low, 3) + 0.0)}, {fmt(round(high, 3) + 0.0)}]"


def reset_noise_text(draws: ResetDraws, init_qpos: np.ndarray, init_qvel: np.ndarray) -> str:
    """The reset-noise line's text: what varied over the measured resets, qpos and qvel against the env's
    `init_qpos` and `init_qvel` (the pose printed above)."""
    seen = f"measured over {draws.resets} resets (seeds 0-{draws.resets - 1}; ranges seen, not the env's bounds)"
    if not (draws.qpos or draws.qvel or draws.placements):
        return f"none {seen}: the same state and placements every time"
    state = [_slots_text("qpos", draws.qpos, init_qpos), _slots_text("qvel", draws.qvel, init_qvel)]
    parts = ["qpos and qvel: none"] if state == ["qpos: none", "qvel: none"] else state
    parts += [
        f"the env places {what} at random ({frame} frame, m): "
        + ", ".join(f"{axis} in {_range(low, high)}" for axis, low, high in axes)
        for what, frame, axes in draws.placements
    ]
    return f"{seen}: " + "; ".join(parts)


def _slots_text(kind: str, varied: list[tuple[int, str, float, float]], centre: np.ndarray) -> str:
    """`qpos: none`, the few slots that varied with their ranges, or how many varied and by how much at most."""
    if not varied:
        return f"{kind}: none"
    if len(varied) <= 4:
        return f"{kind}: " + ", ".join(f"{name} in {_range(low, high)}" for _, name, low, high in varied)
    spread = max(max(abs(low - centre[i]), abs(high - centre[i])) for i, _, low, high in varied)
    of = "0" if kind == "qvel" and not np.any(centre) else "the pose above"
    return f"{kind}: {len(varied)} of {len(centre)} entries vary, each within ±{fmt(round(spread, 4))} of {of}"
