"""Named observation layouts for envs the MuJoCo labeller cannot read, and the manipulation notes.

For envs without a MuJoCo model (Box2D, classic control, a user's own) there is nothing to match obs
elements against, so their layout comes from the env's documentation (`KNOWN_LAYOUTS`, keyed by the
unwrapped class name) or, for an env this tool does not know, from its source: the observation code
with every line that mentions a reward, shaping or cost removed (as Eureka and stable-eureka show it).
Meta-World's and Gymnasium-Robotics' flat observations are documented the same way. Never the reward.
"""

from __future__ import annotations

import inspect
import re

# (obs slice text, meaning) per env class, from each env's documentation.
KNOWN_LAYOUTS: dict[str, list[tuple[str, str]]] = {
    "BipedalWalker": [
        ("obs[0]", "hull angle (rad)"),
        ("obs[1]", "hull angular velocity (scaled: 2*omega/FPS)"),
        ("obs[2]", "hull horizontal velocity (scaled, +x forward)"),
        ("obs[3]", "hull vertical velocity (scaled, +y up)"),
        ("obs[4]", "hip 1 joint angle (rad)"),
        ("obs[5]", "hip 1 joint speed (scaled)"),
        ("obs[6]", "knee 1 joint angle + 1.0 (rad)"),
        ("obs[7]", "knee 1 joint speed (scaled)"),
        ("obs[8]", "leg 1 lower leg touches the ground (1.0 or 0.0)"),
        ("obs[9]", "hip 2 joint angle (rad)"),
        ("obs[10]", "hip 2 joint speed (scaled)"),
        ("obs[11]", "knee 2 joint angle + 1.0 (rad)"),
        ("obs[12]", "knee 2 joint speed (scaled)"),
        ("obs[13]", "leg 2 lower leg touches the ground (1.0 or 0.0)"),
        ("obs[14:24]", "10 lidar rangefinder readings ahead and below the hull (fraction of range, 1 = nothing hit)"),
    ],
    "LunarLander": [
        ("obs[0]", "x position relative to the pad centre (scaled: 0 = centre, +-1 = screen edges)"),
        ("obs[1]", "y position above the pad (scaled: 0 = pad height)"),
        ("obs[2]", "x velocity (scaled)"),
        ("obs[3]", "y velocity (scaled, negative = falling)"),
        ("obs[4]", "body angle (rad, 0 = upright; positive = tilted counter-clockwise, the top leaning toward -x)"),
        ("obs[5]", "angular velocity (scaled)"),
        ("obs[6]", "left leg touches the ground (1.0 or 0.0)"),
        ("obs[7]", "right leg touches the ground (1.0 or 0.0)"),
        ("pad", "the landing pad lies between the flags at about obs[0] = -0.2 and +0.2, at obs[1] = 0"),
        ("crash", "a crash (the body, not a leg, touching the ground) ends the episode but is not in the observation"),
    ],
    "Continuous_MountainCarEnv": [
        ("obs[0]", "car position along the track in [-1.2, 0.6]; the valley floor is near -0.52, the flag at 0.45"),
        ("obs[1]", "car velocity in [-0.07, 0.07] (position units per step, + = right)"),
    ],
    "MountainCarEnv": [
        ("obs[0]", "car position along the track in [-1.2, 0.6]; the flag at 0.5"),
        ("obs[1]", "car velocity in [-0.07, 0.07]"),
    ],
    "PendulumEnv": [
        ("obs[0]", "cos(theta); theta = 0 is upright, theta = +-pi hanging down"),
        ("obs[1]", "sin(theta)"),
        ("obs[2]", "angular velocity theta_dot (rad/s, clipped to [-8, 8])"),
        ("reset", "theta ~ uniform(-pi, pi), theta_dot ~ uniform(-1, 1)"),
    ],
    "CartPoleEnv": [
        ("obs[0]", "cart position (m)"),
        ("obs[1]", "cart velocity (m/s)"),
        ("obs[2]", "pole angle (rad, 0 = upright)"),
        ("obs[3]", "pole angular velocity (rad/s)"),
    ],
    "AcrobotEnv": [
        ("obs[0:2]", "cos, sin of theta1, link 1's angle at the fixed pivot (theta1 = 0: hanging straight down)"),
        ("obs[2:4]", "cos, sin of theta2, link 2's angle relative to link 1 (theta2 = 0: in line with link 1)"),
        ("obs[4]", "theta1_dot, link 1's angular velocity (rad/s, clipped to [-4 pi, 4 pi])"),
        ("obs[5]", "theta2_dot, link 2's angular velocity relative to link 1 (rad/s, clipped to [-9 pi, 9 pi])"),
        (
            "height",
            "both links are 1 m long; the free end's height above the pivot is -cos(theta1) - cos(theta1 + theta2)"
            " (m): -2 hanging, +2 straight up; cos(theta1 + theta2) = obs[0]*obs[2] - obs[1]*obs[3]",
        ),
        ("reset", "theta1, theta2 and both angular velocities each ~ uniform(-0.1, 0.1): hanging, nearly at rest"),
    ],
    "MetaWorld": [
        (
            "obs[0:3]",
            "hand (end-effector body) position xyz (m); the fingertips' centre is midway between sites leftEndEffector and rightEndEffector",
        ),
        ("obs[3]", "gripper opening: distance between the two fingers, normalised to [0, 1] (0 = closed)"),
        ("obs[4:7]", "object 1 position xyz (m): the task's object, handle or button"),
        ("obs[7:11]", "object 1 orientation quaternion"),
        ("obs[11:14]", "object 2 position xyz (zeros when the task has one object)"),
        ("obs[14:18]", "object 2 orientation quaternion (zeros when none)"),
        ("obs[18:36]", "obs[0:18] one control step earlier"),
        ("obs[36:39]", "goal position xyz (m)"),
    ],
    "Fetch": [
        ("obs[0:3]", "gripper position xyz (m)"),
        ("obs[3:6]", "object position xyz (m)"),
        ("obs[6:9]", "object position relative to the gripper (m)"),
        ("obs[9:11]", "finger joint positions (gripper opening, m each)"),
        ("obs[11:14]", "object rotation (Euler xyz, rad)"),
        ("obs[14:17]", "object linear velocity relative to the gripper (scaled by dt)"),
        ("obs[17:20]", "object angular velocity (scaled by dt)"),
        ("obs[20:23]", "gripper linear velocity (scaled by dt)"),
        ("obs[23:25]", "finger joint velocities"),
    ],
    "FetchReach": [  # a Fetch env without an object (`has_object` False): its object slices are empty
        ("obs[0:3]", "gripper position xyz (m)"),
        ("obs[3:5]", "finger joint positions (gripper opening, m each)"),
        ("obs[5:8]", "gripper linear velocity (scaled by dt)"),
        ("obs[8:10]", "finger joint velocities"),
    ],
    "ShadowHand": [
        ("obs[0:24]", "hand joint angles (rad)"),
        ("obs[24:48]", "hand joint velocities (rad/s)"),
        ("obs[48:54]", "object linear and angular velocity"),
        ("obs[54:61]", "object position xyz (m) and orientation quaternion (w, x, y, z)"),
    ],
}
DOCUMENTED_SPANS: dict[str, list[tuple[int, int, str]]] = {
    "AdroitHandDoorEnv": [
        (35, 38, "palm - handle: site S_grasp minus site S_handle, xyz (m)"),
        (38, 39, "door-open flag: +1 when door_hinge > 1.0 rad, else -1"),
    ],
    "AdroitHandHammerEnv": [
        (27, 33, "clip(qvel[-6:], -1, 1): the hammer's velocity (OBJT{x, y, z}, OBJR{x, y, z})"),
        (36, 39, "body pos of Object (the hammer), xyz (m)"),
        (39, 42, "the hammer's orientation as Euler angles about x, y, z (rad); obs[39] is its x-rotation"),
        (45, 46, "nail-impact sensor S_nail (touch force, clipped to [-1, 1])"),
    ],
}
"""Observation spans the matcher cannot read (differences, flags, sensors), from each env's `_get_obs` source."""
GOAL_PARTS = {
    "Fetch": "achieved_goal = the object's position xyz; goal = the target position xyz",
    "FetchReach": "achieved_goal = the gripper position xyz (the same as obs[0:3]; there is no object); goal = the target position xyz",
    "ShadowHand": "achieved_goal = the object's position xyz + quaternion (w, x, y, z); goal = the target pose, same layout",
}
KNOWN_ACTIONS: dict[str, list[str]] = {
    "MetaWorld": [
        "- action[0:3] = hand displacement xyz this step (1/100 m per unit; the arm follows a mocap target)",
        "- action[3] = gripper effort: -1 opens, +1 closes the fingers",
    ],
    "Fetch": [
        "- action[0:3] = gripper displacement xyz this step (0.05 m per unit; the arm follows a mocap target)",
        "- action[3] = finger opening: -1 closes, +1 opens",
    ],
    "BipedalWalker": ["- action[0:4] = motor torque of hip 1, knee 1, hip 2, knee 2 (each in [-1, 1])"],
    "PendulumEnv": ["- action[0] = torque (N m) in [-2, 2]; positive torque increases theta_dot"],
    "LunarLander": [
        "- action[0] = main engine: off below 0, throttle 50% to 100% from 0 to 1",
        "- action[1] = side engines: below -0.5 fires the left booster (pushes toward -x: vx decreases, and obs[4]"
        " increases), above 0.5 the right one (vx increases, obs[4] decreases), off in between",
    ],
    "LunarLander discrete": [
        "- action 0 = no engine, 1 = the left booster (pushes toward -x: vx decreases, and obs[4] increases), 2 ="
        " the main engine at full throttle, 3 = the right booster (vx increases, obs[4] decreases)"
    ],
    "Continuous_MountainCarEnv": ["- action[0] = engine force in [-1, 1] (+ pushes right)"],
    "MountainCarEnv": ["- action 0 = push left, 1 = no push, 2 = push right"],
    "CartPoleEnv": ["- action 0 = push the cart left (-x), 1 = push it right (+x), each with a fixed 10 N"],
    "AcrobotEnv": [
        "- action 0 = torque -1, 1 = no torque, 2 = torque +1 (N m), on the joint between the links only (the pivot"
        " is not driven); positive torque increases theta2_dot"
    ],
}
TERMINATIONS = {
    "Continuous_MountainCarEnv": "the episode ends when the car reaches the flag (position >= 0.45): a success"
    " termination.",
    "MountainCarEnv": "the episode ends when the car reaches the flag (position >= 0.5): a success termination.",
    "LunarLander": "the episode ends on a crash (the body touches the ground), when |obs[0]| >= 1 (off screen), or"
    " when the lander comes to rest (asleep: landed or stuck).",
    "BipedalWalker": "the episode ends when the hull touches the ground, when the walker leaves the course at its"
    " start (x < 0), or when it reaches the course's end (a success termination).",
    "PendulumEnv": "never ends early; episodes end at the time limit.",
    "CartPoleEnv": "the episode ends when |pole angle| > 0.2095 rad or |cart position| > 2.4.",
    "AcrobotEnv": "the episode ends when the free end's height above the pivot exceeds 1 m (-cos(theta1) -"
    " cos(theta1 + theta2) > 1): a success termination.",
}
"""The early-termination rule of each documented env without a MuJoCo model (from its source)."""
GOAL_ONLY_ENDINGS = frozenset({"Continuous_MountainCarEnv", "MountainCarEnv", "AcrobotEnv"})
"""Documented envs whose only early termination is reaching the goal: a cost a step there pays for reaching it
sooner, never for failing sooner (BipedalWalker also ends at its course's end, but ends on a fall too)."""
_REWARD_WORDS = re.compile(r"reward|shaping|cost|penalt", re.IGNORECASE)
MAX_SOURCE_LINES = 80


def layout_key(base) -> str | None:
    """The `KNOWN_LAYOUTS` key of an unwrapped env, or None."""
    cls = type(base).__name__
    module = type(base).__module__
    if cls in KNOWN_LAYOUTS:
        return cls
    if module.startswith("metaworld"):
        return "MetaWorld"
    if "fetch" in module and "gymnasium_robotics" in module:
        return "Fetch"
    if "shadow_dexterous_hand" in module and "manipulate" in module:
        return "ShadowHand"
    return None


def known_layout_lines(base) -> list[str] | None:
    """`- obs[a:b] = meaning` lines of a documented env, or None."""
    key = layout_key(base)
    if key is None:
        return None
    if key == "Fetch" and not getattr(base, "has_object", True):
        key = "FetchReach"  # the same family (hand, actions), a shorter observation
    lines = [
        f"- {where} = {what}" if where.startswith("obs") else f"- at reset: {what}" if where == "reset" else f"- {what}"
        for where, what in KNOWN_LAYOUTS[key]
    ]
    if key in GOAL_PARTS:
        lines.append(f"- {GOAL_PARTS[key]}")
    return lines


def ends_only_at_goal(base) -> bool:
    """Whether an unwrapped env ends an episode early only when it reaches the goal (`GOAL_ONLY_ENDINGS`)."""
    return layout_key(base) in GOAL_ONLY_ENDINGS


def known_action_lines(base) -> list[str] | None:
    """`- action[a:b] = meaning` lines of a documented env whose action is not its model's actuators, or None (an
    env with both kinds, LunarLander, documents each: `continuous=False`, its default, takes one of 4 choices)."""
    key = layout_key(base)
    if key == "LunarLander" and not getattr(base, "continuous", True):
        key = "LunarLander discrete"
    return KNOWN_ACTIONS.get(key) if key else None


def source_without_reward(base) -> list[str]:
    """The env's observation code (`_get_obs`, else `step`), with reward/shaping/cost lines removed."""
    for name in ("_get_obs", "get_obs", "step"):
        method = getattr(type(base), name, None)
        if method is None:
            continue
        try:
            source = inspect.getsource(method)
        except (OSError, TypeError):
            continue
        kept = [line for line in source.splitlines() if line.strip() and not _REWARD_WORDS.search(line)]
        return ["```python", *kept[:MAX_SOURCE_LINES], "```"]
    return ["(no source available: read `state.obs` by index)"]


def _product(tails: list[str]) -> tuple[str, list[str]] | None:
    """The largest `{a, b, c}{x, y}` product among `tails` (at least 3 x 2 of them, split after 2 or 3 characters,
    like a hand's `{ff, mf, rf}{proximal, middle}`), and the tails it leaves out; None when there is none."""
    best: tuple[int, str, list[str]] | None = None
    for cut in (2, 3):
        groups: dict[str, list[str]] = {}
        for tail in tails:
            if len(tail) > cut:
                groups.setdefault(tail[:cut], []).append(tail[cut:])
        for ends in groups.values():
            heads = [h for h, e in groups.items() if set(ends) <= set(e)]
            if len(ends) >= 2 and len(heads) >= 3 and (best is None or len(heads) * len(ends) > best[0]):
                covered = {h + e for h in heads for e in ends}
                text = f"{{{', '.join(heads)}}}{{{', '.join(ends)}}}"
                best = (len(covered), text, [t for t in tails if t not in covered])
    return None if best is None else (best[1], best[2])


def braces_note(text: str, sites: str = "") -> str:
    """`; P_{a, b}{c, d} = ...` when `text` holds a product of names (`by_prefix`), else ""; `sites`: the sites'
    line, whose heading explains it already when it holds one."""
    if "}{" not in text:
        return ""
    return "; braces as for sites" if "}{" in sites else "; `P_{a, b}{c, d}` = P_ac, P_ad, P_bc, P_bd"


def by_prefix(names: list[str], least: int = 5) -> str:
    """Names as a comma list, those sharing a `Prefix_` (at least `least` of them) written once as `Prefix_{a, b}`,
    or as `Prefix_{a, b}{c, d}` (= Prefix_ac, Prefix_ad, Prefix_bc, Prefix_bd) where that covers at least 6."""
    groups: dict[str, list[str]] = {}
    for name in names:
        head, sep, tail = name.partition("_")
        groups.setdefault(head + sep if sep and head else name, []).append(tail if sep and head else "")
    parts = []
    for head, tails in groups.items():
        if len(tails) >= least and all(tails):
            product = _product(tails)
            if product is not None:
                text, rest = product
                parts.append(head + text)
                tails = rest
            if len(tails) > 1:
                parts.append(f"{head}{{{', '.join(tails)}}}")
            else:
                parts += [head + t for t in tails]
        else:
            parts += [head + t for t in tails]
    return ", ".join(parts)


def handles_objects(model) -> bool:
    """Whether a MuJoCo scene is one of manipulation: the policy moves a mocap target (Meta-World's and Fetch's
    hands), or a free body carries no actuated joint below it (a loose object; a robot's free root carries its legs)."""
    if model.nmocap:
        return True
    actuated = {
        int(model.jnt_bodyid[model.actuator_trnid[a, 0]]) for a in range(model.nu) if model.actuator_trntype[a] == 0
    }
    for j in range(model.njnt):
        if model.jnt_type[j] != 0:  # mjJNT_FREE
            continue
        body = int(model.jnt_bodyid[j])
        below: set[int] = {body}
        for b in range(body + 1, model.nbody):  # bodies are numbered parents first: one pass finds the subtree
            if int(model.body_parentid[b]) in below:
                below.add(b)
        if not below & actuated:
            return True
    return False


def manipulation_lines(schema, fingers: bool = True) -> list[str]:
    """What a manipulation reward can read: contacts, frames, gripper (`fingers`: when no hand section names them)
    and tendon names."""
    grip = [j for j in schema.joints if re.search(r"finger|grip|close|pad|claw", j, re.IGNORECASE)]
    lines = [
        "## Contacts and frames (manipulation)",
        "- `state.contacts()`: every active contact as (geom1, geom2, body1, body2, force, pos): geom and body names,"
        " normal force (N), world position; `state.touching(a, b=None)` (bool) and `state.contact_force(a, b=None)`"
        " (N, summed) take geom or body names (b=None: against anything).",
    ]
    model = getattr(schema, "_model", None)
    named_geoms = [
        g
        for i, g in enumerate(schema.geom_names)
        if not re.match(r"_?geom_\d+$", g)
        and (model is None or model.geom_contype[i] | model.geom_conaffinity[i])  # not a visual-only geom
    ]
    if named_geoms:
        lines.append(
            f"- Named geoms ({len(named_geoms)}, collision only"
            f"{braces_note(by_prefix(named_geoms[:60]), by_prefix(list(schema.site_names)))}):"
            f" {by_prefix(named_geoms[:60])}" + (" ..." if len(named_geoms) > 60 else "")
        )
    if grip and fingers:
        lines.append(f"- Gripper/finger joints: {', '.join(grip[:30])}")
    if schema.tendon_names:
        lines.append(
            f"- {len(schema.tendon_names)} tendons couple finger joints (read the joints; the State API has no tendons)"
        )
    return lines
