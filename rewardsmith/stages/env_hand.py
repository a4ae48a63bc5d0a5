"""The hand of a mocap-driven arm (Meta-World, Fetch), as the environment description shows it: the policy moves a
mocap target, so the arm's joints and links are left out; instead the hand frame, the fingertip centre, and what
the gripper action does to each finger joint, found by stepping the env (not assumed: Meta-World's `r_close` grows
as the gripper closes, Fetch's finger joints shrink, FetchPush ignores the gripper action).
"""

from __future__ import annotations

import re

import numpy as np

from rewardsmith.reward.state import StateSchema
from rewardsmith.stages.obs_labels import fmt

GRIP = re.compile(r"finger|grip|close|pad|claw", re.IGNORECASE)
CLOSE_SIGN = {"MetaWorld": 1.0, "Fetch": -1.0}
"""The gripper action's sign that closes the fingers, per family (from each env's documentation)."""
FINGERTIPS = {
    "MetaWorld": ("midway between sites rightEndEffector and leftEndEffector", ("rightEndEffector", "leftEndEffector")),
    "Fetch": ("site robot0:grip", ("robot0:grip",)),
}
STEPS = 10


def _subtree(model, root: int) -> set[int]:
    out = {root}
    for b in range(root + 1, model.nbody):
        if model.body_parentid[b] in out:
            out.add(b)
    return out


def _ancestors(model, b: int) -> list[int]:
    chain = [b]
    while chain[-1] != 0:
        chain.append(int(model.body_parentid[chain[-1]]))
    return chain


def hand_parts(model, schema: StateSchema) -> tuple[int, set[int]] | None:
    """(the hand body, the arm's bodies: the robot's subtree without the hand's), or None without fingers."""
    fingers = [int(model.jnt_bodyid[j]) for j, name in enumerate(schema.joints) if GRIP.search(name)]
    if len(fingers) < 2 or model.nmocap == 0:
        return None
    common = [b for b in _ancestors(model, fingers[0]) if all(b in _ancestors(model, f) for f in fingers[1:])]
    hand = common[0]
    robot = _ancestors(model, hand)[-2]  # the world's child that carries the hand
    return hand, _subtree(model, robot) - _subtree(model, hand)


def _finger_positions(env, joints: list[int], action_sign: float, seed: int) -> np.ndarray:
    env.reset(seed=seed)
    base = env.unwrapped
    action = np.zeros(env.action_space.shape, dtype=np.float32)
    action[3] = action_sign
    for _ in range(STEPS):
        env.step(action)
    return np.array([base.data.qpos[base.model.jnt_qposadr[j]] for j in joints])


def hand_lines(env, schema: StateSchema, key: str, seed: int) -> list[str]:
    """The `## Hand` section of a mocap arm: frame, fingertip centre, and each finger joint under the gripper
    action (stepped from reset); [] when the model has no mocap hand."""
    base = env.unwrapped
    model = base.model
    parts = hand_parts(model, schema)
    if parts is None or key not in CLOSE_SIGN:
        return []
    hand, _ = parts
    names = list(schema.joints)
    joints = [j for j, name in enumerate(names) if GRIP.search(name) and model.jnt_bodyid[j] in _subtree(model, hand)]
    env.reset(seed=seed)
    rest = np.array([base.data.qpos[model.jnt_qposadr[j]] for j in joints])
    hand_at = ", ".join(fmt(round(float(c), 3) + 0.0) for c in base.data.xpos[hand])
    where, sites = FINGERTIPS[key]
    tip = np.mean([base.data.site_xpos[schema.site_names.index(s)] for s in sites if s in schema.site_names], axis=0)
    close = CLOSE_SIGN[key]
    closed, opened = (_finger_positions(env, joints, s, seed) for s in (close, -close))
    lines = [
        "## Hand (the policy moves a mocap target; the arm's joints follow it and are not listed)",
        f'- hand frame: body `{schema.body_names[hand]}` (`state.body("{schema.body_names[hand]}").pos`, `.xmat`),'
        f" at ({hand_at}) after reset",
        f"- fingertip centre: {where}, at ({', '.join(fmt(round(float(c), 3) + 0.0) for c in tip)}) after reset",
    ]
    if np.allclose(closed, opened, atol=1e-4):
        why = " (block_gripper)" if getattr(base, "block_gripper", False) else ""
        return [*lines, f"- the gripper action action[3] is ignored by this env{why}: the fingers stay where they are"]
    for j, r, c, o in zip(joints, rest, closed, opened, strict=True):
        grows = "grows" if c > o else "shrinks"
        lines.append(
            f"- {names[j]} (qpos[{model.jnt_qposadr[j]}]): {grows} as the gripper closes: {fmt(round(float(r), 4) + 0.0)}"
            f" at reset, {fmt(round(float(c), 4) + 0.0)} after {STEPS} steps of action[3] = {fmt(close)} (closing),"
            f" {fmt(round(float(o), 4) + 0.0)} after {STEPS} steps of action[3] = {fmt(-close)} (opening)"
        )
    return lines
