"""The joint and actuator sections of the environment description: each joint's indices, range and world axis at
the reset pose, with joints that share an axis pointing at one line of an axis key (so a hand's thirty hinges
about three directions cost three axis sentences, not thirty), and the actuators with what an action value does.
Used by `rewardsmith.stages.env_description`.
"""

from __future__ import annotations

import numpy as np

from rewardsmith.reward.state import JOINT_TYPE_NAMES, StateSchema
from rewardsmith.stages.obs_labels import fmt, value_range

SOFT_LIMITS = {
    "btnbox_joint": "a soft limit: pressed hard, the button travels past it; success needs about 0.073 m of travel",
}
"""Joint ranges that are not hard stops, by joint name (measured by pressing Meta-World's button)."""


COMPACT_JOINTS = 20
"""Above this many joints (a hand) each joint's line is written in the compact form its heading explains."""


def axis_name(v: np.ndarray) -> str:
    """A world direction as `+x`/`-z` when it is (nearly) one axis, else as a rounded vector."""
    k = int(np.argmax(np.abs(v)))
    if abs(v[k]) > 0.999 * np.linalg.norm(v):
        return f"{'+' if v[k] > 0 else '-'}{'xyz'[k]}"
    return "(" + ", ".join(f"{c + 0.0:.2f}" for c in np.round(v, 2)) + ")"


def sign_words(kind: str, world_axis: np.ndarray, root: bool = False) -> str:
    """What a positive joint value does, in words, for a slide or hinge joint with this world axis."""
    u = world_axis / (np.linalg.norm(world_axis) or 1.0)
    if kind == "slide":
        return f"positive moves the body along {axis_name(u)}"
    moves: list[str] = []
    for k in (2, 0, 1):  # how the world's +z, +x, +y directions turn under a small positive rotation
        e = np.eye(3)[k]
        turn = np.cross(u, e)
        if np.linalg.norm(turn) > 0.1 and len(moves) < 2:  # a direction within ~6 degrees of the axis barely turns
            moves.append(f"{'+' + 'xyz'[k]} turns toward {axis_name(turn)}")
    words = f"positive rotates by the right-hand rule about {axis_name(u)}: " + ", ".join(moves)
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


def _axis_text(model, data, j: int) -> str:
    """`(0 1 0) -> world +y; positive ...` for a hinge or slide joint in the pose of `data`; "" for others."""
    kind = JOINT_TYPE_NAMES[int(model.jnt_type[j])]
    if kind not in ("hinge", "slide"):
        return ""
    local = model.jnt_axis[j]
    world = data.xmat[model.jnt_bodyid[j]].reshape(3, 3) @ local
    body = "(" + " ".join(f"{c:g}" for c in local) + ")"
    return f"{body} -> world {axis_name(world)}; {sign_words(kind, world, _is_root(model, j))}"


def joint_lines(
    base, schema: StateSchema, qpos: np.ndarray | None, skip: frozenset[str] | set[str] = frozenset()
) -> list[str]:
    """The `## Joints` section: one line per joint (not those in `skip`) with its axis at the pose `qpos`; an axis
    shared by several joints is written once, in an axis key that their lines name by letter."""
    import mujoco

    model = base.model
    data = mujoco.MjData(model)
    data.qpos[:] = base.data.qpos if qpos is None else qpos
    mujoco.mj_forward(model, data)
    shown = [(j, joint) for j, joint in enumerate(schema.joints.values()) if joint.name not in skip]
    axes = {j: _axis_text(model, data, j) for j, _ in shown}
    counts: dict[str, int] = {}
    for text in axes.values():
        counts[text] = counts.get(text, 0) + 1
    key = {text: chr(ord("A") + i) for i, text in enumerate(t for t in counts if t and counts[t] > 1)}
    compact = len(shown) > COMPACT_JOINTS
    lines = [
        "## Joints (name: type, qpos index (the qvel index is the same unless given), range; axis in its body's frame"
        " -> in the world frame at the reset pose; what a positive value does)"
        if not compact
        else "## Joints (name: type, qpos index (= qvel index unless two are given), range (rad for hinges, m for"
        " slides), axis: a letter of the axis key below, or the axis in its body's frame -> in the world frame at"
        " the reset pose; what a positive value does)"
    ]
    for j, joint in shown:
        qp, qv = joint.qpos, joint.qvel
        qps = f"qpos[{qp.start}]" if qp.stop - qp.start == 1 else f"qpos[{qp.start}:{qp.stop}]"
        qvs = f"qvel[{qv.start}]" if qv.stop - qv.start == 1 else f"qvel[{qv.start}:{qv.stop}]"
        index = qps if qps[4:] == qvs[4:] else f"{qps}, {qvs}"
        limit = value_range(*model.jnt_range[j]) if model.jnt_limited[j] else "unlimited"
        unit = " rad" if joint.kind in ("hinge", "ball") and model.jnt_limited[j] and not compact else ""
        text = axes[j]
        axis = (
            f"; axis {key[text]}"
            if text in key
            else f"; axis {text}"
            if text
            else "; orientation as a unit quaternion (w, x, y, z) in qpos"
            if joint.kind in ("free", "ball")
            else ""
        )
        soft = f" ({SOFT_LIMITS[joint.name]})" if joint.name in SOFT_LIMITS and model.jnt_limited[j] else ""
        if compact:  # a hand's many joints: the same facts, fewer words
            index, axis = index.replace("qpos", "").replace("qvel", "qvel"), axis.replace("; axis ", " ", 1)
            lines.append(f"- {joint.name}: {joint.kind} {index} {limit}{soft}{axis}")
        else:
            lines.append(f"- {joint.name}: {joint.kind}, {index}, {limit}{unit}{soft}{axis}")
    if key:
        lines.append("Axis key (shared by the joints that name it):")
        lines += [f"- axis {letter}: {text}" for text, letter in key.items()]
    if any(model.jnt_type[j] == 3 and not model.jnt_limited[j] for j, _ in shown):
        lines.append(
            "Hinge angles are not wrapped: an unlimited hinge keeps counting past +-pi (one full turn in the positive"
            " direction adds 2*pi = 6.283 rad). Child joint axes turn with their parent bodies; body orientations"
            " (`.quat`, `.xmat`) are wrapped by nature."
        )
    return lines


def actuator_lines(base, schema: StateSchema) -> list[str]:
    """The `## Actuators` section; for position servos mapped from [-1, 1] (Adroit), what an action value means."""
    model = base.model
    gears = {float(model.actuator_gear[a, 0]) for a in range(model.nu)}
    same_gear = len(gears) == 1
    head = "## Actuators (action index -> actuator -> joint, control range" + (
        f"; gear {fmt(gears.pop())} each)" if same_gear else ", gear)"
    )
    lines = [head]
    servo = model.nu > 0 and all(int(model.actuator_biastype[a]) == 1 for a in range(model.nu))
    if servo and (hasattr(base, "act_mean") or getattr(base, "relative_control", None) is False):
        lines.append(
            "Position servos: each action value in [-1, 1] is a position target mapped linearly onto its control"
            " range (-1 -> low end, 0 -> midpoint, +1 -> high end; rad for hinges, m for slides); the actuator"
            " drives its joint toward that target. Not a torque."
        )
    joint_names = list(schema.joints)
    targets = [
        joint_names[model.actuator_trnid[a, 0]] if model.actuator_trntype[a] == 0 else "(not a joint)"
        for a in range(model.nu)
    ]
    ranges = [value_range(*model.actuator_ctrlrange[a]) for a in range(model.nu)]
    if same_gear and model.nu > 8 and all(n.replace("A_", "", 1) == t for n, t in zip(schema.actuator_names, targets)):
        shown = ", ".join(f"{t} {r}" for t, r in zip(targets, ranges, strict=True))
        return [*lines, f"- action[0:{model.nu}] -> actuator A_<joint> of each joint, in this order: {shown}"]
    for a in range(model.nu):
        gear = "" if same_gear else f", gear {fmt(model.actuator_gear[a, 0])}"
        lines.append(f"- action[{a}] -> {schema.actuator_names[a]} -> {targets[a]}, {ranges[a]}{gear}")
    return lines
