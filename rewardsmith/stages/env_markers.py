"""Goal markers an env moves only when it renders a frame, found by measuring, so the description can say so.

Gymnasium-Robotics' Fetch and Shadow Hand envs draw the goal by moving a marker (Fetch's site `target0`; the hand's
body `target`, its free joint and its site) in `_render_callback`, which runs in `render()` only. During training
nothing renders, so the marker stays where reset left it, far from `state.goal`: a reward that read it would chase
a fixed point. `render_only` calls the callback once on a described env, records which sites, bodies and joints
moved, and restores the state it changed.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

MOVED = 1e-9
"""A world position that changed by more than this (m) moved."""


@dataclass(frozen=True)
class RenderOnly:
    """Names of the markers `render()` moves: empty lists where the env has none."""

    sites: list[str]
    bodies: list[str]
    joints: list[str]

    def __bool__(self) -> bool:
        return bool(self.sites or self.bodies or self.joints)


def render_only(base, schema) -> RenderOnly:
    """The sites, bodies and joints of `base` (an unwrapped MuJoCo env, after reset) that its render callback moves;
    `schema`: its `StateSchema` (the names). The env's state is as it was on return."""
    import mujoco

    callback = getattr(base, "_render_callback", None)
    if callback is None:
        return RenderOnly([], [], [])
    model, data = base.model, base.data
    saved = model.site_pos.copy(), data.qpos.copy(), data.qvel.copy()
    sites, bodies = data.site_xpos.copy(), data.xpos.copy()
    try:
        callback()
        moved_sites = np.abs(data.site_xpos - sites).max(axis=1) > MOVED if len(sites) else np.zeros(0, bool)
        moved_bodies = np.abs(data.xpos - bodies).max(axis=1) > MOVED
    finally:
        model.site_pos[:], data.qpos[:], data.qvel[:] = saved
        mujoco.mj_forward(model, data)
    body_ids = {int(i) for i in np.flatnonzero(moved_bodies)}
    return RenderOnly(
        sites=[schema.site_names[i] for i in np.flatnonzero(moved_sites)],
        bodies=[schema.body_names[i] for i in sorted(body_ids)],
        joints=[name for j, name in enumerate(schema.joints) if int(model.jnt_bodyid[j]) in body_ids],
    )


def render_only_lines(markers: RenderOnly, goal_env: bool) -> list[str]:
    """The description's warning about `markers`; nothing where there are none."""
    if not markers:
        return []
    named = [f"site {n}" for n in markers.sites] + [f"body {n}" for n in markers.bodies]
    named += [f"joint {n}" for n in markers.joints]
    it, they, stays = ("it", "it", "stays") if len(named) == 1 else ("them", "they", "stay")
    read = "read the env's goal from `state.goal`" if goal_env else f"do not read the env's goal from {it}"
    return [  # "the env's goal": a user's own task on this env may want something else (`rewardsmith new-task`)
        "## Goal markers that move only when the env renders",
        f"- {', '.join(named)}: the env moves {it} to its own goal only when it draws a frame (a video); during "
        f"training {they} {stays} where reset put {it}, away from that goal: {read}.",
    ]
