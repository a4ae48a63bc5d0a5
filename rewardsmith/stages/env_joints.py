"""The joint and actuator sections of the environment description: each joint's indices, range and world axis at
the reset pose, with joints that share an axis pointing at one line of an axis key (so a hand's thirty hinges
about three directions cost three axis sentences, not thirty), and the actuators with what an action value does.
Used by `rewardsmith.stages.env_description`.
"""

from __future__ import annotations

import numpy as np

from rewardsmith.reward.state import JOINT_TYPE_NAMES, StateSchema
from rewardsmith.stages.env_chains import HEADING, QVEL, Joint, braced, chain_lines, short_vector, span
from rewardsmith.stages.obs_labels import fmt, value_range

SOFT_LIMITS = {
    "btnbox_joint": "a soft limit: pressed hard, the button travels past it; success needs about 0.073 m of travel",
}
"""Joint ranges that are not hard stops, by joint name (measured by pressing Meta-World's button)."""


COMPACT_JOINTS = 20
"""Above this many joints (a hand) each joint's line is written in the compact form its heading explains."""


def axis_name(v: np.ndarray, short: bool = False) -> str:
    """A world direction as `+x`/`-z` when it is (nearly) one axis, else as a rounded vector (`short`: trailing
    zeros cut)."""
    k = int(np.argmax(np.abs(v)))
    if abs(v[k]) > 0.999 * np.linalg.norm(v):
        return f"{'+' if v[k] > 0 else '-'}{'xyz'[k]}"
    return short_vector(v) if short else "(" + ", ".join(f"{c + 0.0:.2f}" for c in np.round(v, 2)) + ")"


def _turns(u: np.ndarray, short: bool = False) -> list[tuple[str, str]]:
    """How the world's +z, +x, +y directions turn under a small positive rotation about the unit axis `u`: the
    first two that turn (a direction within ~6 degrees of the axis barely does), as (direction, toward)."""
    moves: list[tuple[str, str]] = []
    for k in (2, 0, 1):
        turn = np.cross(u, np.eye(3)[k])
        if np.linalg.norm(turn) > 0.1 and len(moves) < 2:
            moves.append(("+" + "xyz"[k], axis_name(turn, short)))
    return moves


def sign_words(kind: str, world_axis: np.ndarray, root: bool = False) -> str:
    """What a positive joint value does, in words, for a slide or hinge joint with this world axis."""
    u = world_axis / (np.linalg.norm(world_axis) or 1.0)
    if kind == "slide":
        return f"positive moves the body along {axis_name(u)}"
    moves = ", ".join(f"{a} turns toward {b}" for a, b in _turns(u))
    words = f"positive rotates by the right-hand rule about {axis_name(u)}: {moves}"
    if root and axis_name(u) in ("+y", "-y"):
        forward = axis_name(u) == "+y"
        words += (
            f" (pitches the body's top toward {'+x' if forward else '-x'}: a forward, nose-down rotation for a body"
            f" facing +x; a backward rotation (backflip) makes it {'decrease' if forward else 'increase'})"
        )
    return words


def _is_root(model, j: int) -> bool:
    """A planar root (a world child with two slides and one hinge, like Hopper's): the body a backflip turns."""
    body = model.jnt_bodyid[j]
    if model.body_parentid[body] != 0:
        return False
    kinds = sorted(int(model.jnt_type[k]) for k in range(model.njnt) if model.jnt_bodyid[k] == body)
    return kinds == [2, 2, 3]


def _axis_text(model, data, j: int, short: bool = False) -> str:
    """`(0 1 0) -> world +y; positive ...` for a hinge or slide joint in the pose of `data`; "" for others.
    `short`: `(0 1 0) -> world +y; +z to +x, +x to -z`, the words the compact table's heading explains."""
    kind = JOINT_TYPE_NAMES[int(model.jnt_type[j])]
    if kind not in ("hinge", "slide"):
        return ""
    local = model.jnt_axis[j]
    world = data.xmat[model.jnt_bodyid[j]].reshape(3, 3) @ local
    if short:
        u = world / (np.linalg.norm(world) or 1.0)
        turns = "" if kind == "slide" else "; {} to {}".format(*_turns(u, short=True)[0])  # one settles the sign
        return f"({' '.join(f'{c:.3g}' for c in local)}) -> {axis_name(u, short=True)}{turns}"
    body = "(" + " ".join(f"{c:g}" for c in local) + ")"
    return f"{body} -> world {axis_name(world)}; {sign_words(kind, world, _is_root(model, j))}"


def _index(joint) -> str:
    qp, qv = joint.qpos, joint.qvel
    qps = f"qpos[{qp.start}]" if qp.stop - qp.start == 1 else f"qpos[{qp.start}:{qp.stop}]"
    qvs = f"qvel[{qv.start}]" if qv.stop - qv.start == 1 else f"qvel[{qv.start}:{qv.stop}]"
    return qps if qps[4:] == qvs[4:] else f"{qps}, {qvs}"


def _ctrl_ranges(model) -> dict[int, str]:
    """The control range of each joint an actuator drives directly, by joint id, as the compact table writes it."""
    return {
        int(model.actuator_trnid[a, 0]): span(*model.actuator_ctrlrange[a])
        for a in range(model.nu)
        if model.actuator_trntype[a] == 0 and model.actuator_ctrllimited[a]
    }


def _ctrl_mark(ctrl: str | None, limit: str, joint_range: np.ndarray) -> str:
    """What the compact table adds after a joint's range for its control range: nothing when they are the same
    (or it has no actuator), `~` when the control range is the range to 2 significant digits, else `ctrl [..]`."""
    if ctrl is None or ctrl == limit:
        return ""
    return "~" if ctrl == span(*(float(f"{x:.2g}") for x in joint_range)) else f" ctrl {ctrl}"


def joint_lines(
    base, schema: StateSchema, qpos: np.ndarray | None, skip: frozenset[str] | set[str] = frozenset()
) -> list[str]:
    """The `## Joints` section: one line per joint (not those in `skip`) with its axis at the pose `qpos`; an axis
    shared by several joints is written once, in an axis key that their lines name by letter. A hand's many
    joints (more than `COMPACT_JOINTS`) are grouped by finger (`rewardsmith.stages.env_chains`)."""
    import mujoco

    model = base.model
    data = mujoco.MjData(model)
    data.qpos[:] = base.data.qpos if qpos is None else qpos
    mujoco.mj_forward(model, data)
    shown = [(j, joint) for j, joint in enumerate(schema.joints.values()) if joint.name not in skip]
    compact = len(shown) > COMPACT_JOINTS
    axes = {j: _axis_text(model, data, j, short=compact) for j, _ in shown}
    counts: dict[str, int] = {}
    for text in axes.values():
        counts[text] = counts.get(text, 0) + 1
    key = {text: chr(ord("A") + i) for i, text in enumerate(t for t in counts if t and counts[t] > 1)}
    lines = (
        [
            "## Joints (name: type, qpos index (the qvel index is the same unless given), range; axis in its body's"
            " frame -> in the world frame at the reset pose; what a positive value does)"
        ]
        if not compact
        else [
            HEADING if any("qvel" in _index(joint) for _, joint in shown) else HEADING.replace(QVEL, " and qvel[i:j]")
        ]
    )
    ctrl = _ctrl_ranges(model) if compact else {}
    table: list[Joint] = []
    for j, joint in shown:
        index = _index(joint)
        limit = (span if compact else value_range)(*model.jnt_range[j]) if model.jnt_limited[j] else "unlimited"
        soft = f" ({SOFT_LIMITS[joint.name]})" if joint.name in SOFT_LIMITS and model.jnt_limited[j] else ""
        text = axes[j]
        quat = "orientation as a unit quaternion (w, x, y, z) in qpos"
        if compact:
            axis = key.get(text, text) or (f"; {quat}" if joint.kind in ("free", "ball") else "")
            own = _ctrl_mark(ctrl.get(j), limit, model.jnt_range[j])
            kind = "" if joint.kind == "hinge" else f"{joint.kind} "
            limit = "" if joint.kind == "free" else limit
            table.append(
                Joint(
                    joint.name,
                    joint.qpos.start,
                    index.replace("qpos", ""),
                    " ".join(p for p in (f"{kind}{limit}{soft}{own}".strip(), axis) if p).replace(" ;", ";"),
                    joint.kind in ("hinge", "slide") and "qvel" not in index,
                )
            )
            continue
        unit = " rad" if joint.kind in ("hinge", "ball") and model.jnt_limited[j] else ""
        axis = (
            f"; axis {key[text]}"
            if text in key
            else f"; axis {text}"
            if text
            else f"; {quat}"
            if joint.kind in ("free", "ball")
            else ""
        )
        lines.append(f"- {joint.name}: {joint.kind}, {index}, {limit}{unit}{soft}{axis}")
    lines += chain_lines(table)
    if key:
        lines.append("Axis key:" if compact else "Axis key (shared by the joints that name it):")
        lines += [f"- {'' if compact else 'axis '}{letter}: {text}" for text, letter in key.items()]
    if any(model.jnt_type[j] == 3 and not model.jnt_limited[j] for j, _ in shown):
        lines.append(
            "Hinge angles are not wrapped (unlimited ones count past +-pi; a full positive turn adds 6.283 rad);"
            " `.quat`, `.xmat` are. Child joint axes turn with their parent bodies."
        )
    return lines


def _table_order(model, schema: StateSchema, targets: list[str]) -> str:
    """`action[0:n] -> ...` for a hand whose actuators drive its joints in table order (ranges: the table's)."""
    names = list(schema.joints)
    ids = [int(model.actuator_trnid[a, 0]) for a in range(model.nu)]
    skipped = [names[j] for j in range(ids[0], ids[-1]) if j not in ids]
    order = f"the joints from {targets[0]} to {targets[-1]} in table order" if ids == sorted(ids) else braced(targets)
    order += f", skipping {braced(skipped)}" if skipped and ids == sorted(ids) else ""
    return f"- action[0:{model.nu}] -> actuator {schema.actuator_names[0]} of {targets[0]}, and so on for {order}"


def actuator_lines(base, schema: StateSchema) -> list[str]:
    """The `## Actuators` section; for position servos mapped from [-1, 1] (Adroit), what an action value means."""
    model = base.model
    gears = {float(model.actuator_gear[a, 0]) for a in range(model.nu)}
    same_gear = len(gears) == 1
    gear = f"gear {fmt(gears.pop())} each" if same_gear else "gear"
    head = f"## Actuators (action index -> actuator -> joint, control range; {gear})"
    hand = same_gear and len(schema.joints) > COMPACT_JOINTS
    if hand:  # the control ranges are in the joint table
        head = f"## Actuators ({gear})"
    lines = [head]
    servo = model.nu > 0 and all(int(model.actuator_biastype[a]) == 1 for a in range(model.nu))
    if servo and (hasattr(base, "act_mean") or getattr(base, "relative_control", None) is False):
        lines.append(
            "Position servos: each action value in [-1, 1] is a position target mapped linearly onto its control"
            " range (-1 low end, +1 high end), which the joint is driven toward; not a torque."
        )
    joint_names = list(schema.joints)
    targets = [
        joint_names[model.actuator_trnid[a, 0]] if model.actuator_trntype[a] == 0 else "(not a joint)"
        for a in range(model.nu)
    ]
    ranges = [value_range(*model.actuator_ctrlrange[a]) for a in range(model.nu)]
    if same_gear and model.nu > 8 and all(n.replace("A_", "", 1) == t for n, t in zip(schema.actuator_names, targets)):
        if hand and all(model.actuator_ctrllimited[: model.nu]):
            return [*lines, _table_order(model, schema, targets)]
        shown = ", ".join(f"{t} {r}" for t, r in zip(targets, ranges, strict=True))
        return [*lines, f"- action[0:{model.nu}] -> actuator A_<joint> of each joint, in this order: {shown}"]
    for a in range(model.nu):
        gear = "" if same_gear else f", gear {fmt(model.actuator_gear[a, 0])}"
        lines.append(f"- action[{a}] -> {schema.actuator_names[a]} -> {targets[a]}, {ranges[a]}{gear}")
    return lines
