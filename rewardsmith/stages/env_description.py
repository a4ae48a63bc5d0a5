"""The environment description the LLM sees (Text2Reward style), generated from the MuJoCo model.

It names bodies, joints, sites and actuators, the action and observation layouts, the timestep, the
time limit and the termination rule, and how a reward reads the `State`. It never shows the env's own
reward code, reward weights or `info` keys. The observation layout is found by matching each obs
element against candidate quantities (qpos, qvel, sin/cos, body positions and their differences,
contact forces, clipped variants) over a few random states; what matches nothing is "unlabelled".
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rewardsmith.reward.state import JOINT_TYPE_NAMES, StateSchema, control_period, schema_for
from rewardsmith.stages.obs_layouts import (
    known_action_lines,
    known_layout_lines,
    manipulation_lines,
    source_without_reward,
)
from rewardsmith.task import TaskSpec, make_env

_FREE_QPOS = ("x", "y", "z", "qw", "qx", "qy", "qz")
_FREE_QVEL = ("vx", "vy", "vz", "wx", "wy", "wz")
_CFRC = ("tx", "ty", "tz", "fx", "fy", "fz")
_AT_TIME_LIMIT = "never ends early; episodes end at the time limit."
_NEVER_TERMINATES = {
    **dict.fromkeys(("HalfCheetahEnv", "ReacherEnv", "PusherEnv", "SwimmerEnv"), _AT_TIME_LIMIT),
    **dict.fromkeys(("AdroitHandDoorEnv", "AdroitHandHammerEnv", "AdroitHandRelocateEnv"), _AT_TIME_LIMIT),
    "SawyerXYZEnv": "Meta-World: never ends early (even on success); episodes end at the time limit.",
    "BaseRobotEnv": f"Gymnasium-Robotics goal env: {_AT_TIME_LIMIT}",
}
"""Env classes, or base classes, whose step never returns terminated=True (from each benchmark's source and docs)."""
_TERMINATION_RULES = {
    "InvertedDoublePendulumEnv": "the episode ends when the height (z) of site `tip` drops to 1.0 or below.",
    "InvertedPendulumEnv": "the episode ends when |qpos[1]| (the pole hinge angle) exceeds 0.2 rad.",
}
SAMPLES = 10


def _fmt(x: float) -> str:
    return "inf" if np.isposinf(x) else "-inf" if np.isneginf(x) else f"{x:.4g}"


def _range(lo: float, hi: float) -> str:
    return f"[{_fmt(lo)}, {_fmt(hi)}]"


def _slot_labels(schema: StateSchema, free: tuple[str, ...], which: str) -> list[str]:
    """One label per qpos (or qvel) entry: the joint name, or `joint.x` for free/ball joints."""
    labels: list[str] = []
    for joint in schema.joints.values():
        part = getattr(joint, which)
        n = part.stop - part.start
        labels += [joint.name] if n == 1 else [f"{joint.name}.{free[i] if i < len(free) else i}" for i in range(n)]
    return labels


@dataclass(frozen=True)
class Candidate:
    """A quantity an obs element may equal: `family[index]` with a human label."""

    family: str
    index: int
    label: str
    indexed: bool = True


def _candidates(data, schema: StateSchema) -> tuple[list[Candidate], np.ndarray]:
    """Candidate quantities of the current MuJoCo state, with their values (one per candidate)."""
    cands: list[Candidate] = []
    values: list[np.ndarray] = []

    def add(family: str, array: np.ndarray, labels: list[str], indexed: bool = True) -> None:
        flat = np.asarray(array, dtype=float).ravel()
        cands.extend(Candidate(family, i, labels[i], indexed) for i in range(flat.size))
        values.append(flat)

    qpos_l, qvel_l = _slot_labels(schema, _FREE_QPOS, "qpos"), _slot_labels(schema, _FREE_QVEL, "qvel")
    add("qpos", data.qpos, qpos_l)
    add("qvel", data.qvel, qvel_l)
    add("clip(qvel, -10, 10)", np.clip(data.qvel, -10, 10), qvel_l)
    add("sin(qpos)", np.sin(data.qpos), qpos_l)
    add("cos(qpos)", np.cos(data.qpos), qpos_l)
    bodies = schema.body_names[1:]  # not the world body: its values are constant
    add("body pos", data.xpos[1:], [f"{b}.{a}" for b in bodies for a in "xyz"], False)
    if schema.site_names:
        add("site pos", data.site_xpos, [f"{s}.{a}" for s in schema.site_names for a in "xyz"], False)
    named = [i for i, b in enumerate(bodies, 1) if not b.startswith("_body_")]
    for a in named:
        for b in named:
            if a != b:
                add(
                    f"body pos {schema.body_names[a]} - {schema.body_names[b]}",
                    data.xpos[a] - data.xpos[b],
                    list("xyz"),
                    False,
                )
    cfrc = [f"{b}.{c}" for b in bodies for c in _CFRC]
    add("cfrc_ext", data.cfrc_ext[1:], cfrc, False)
    add("clip(cfrc_ext, -1, 1)", np.clip(data.cfrc_ext[1:], -1, 1), cfrc, False)
    add("clip(qfrc_constraint, -10, 10)", np.clip(data.qfrc_constraint, -10, 10), qvel_l)
    return cands, np.concatenate(values)


def _random_states(env, rng: np.random.Generator):
    """Yield after setting the env to a few random states (contact forces computed too)."""
    import mujoco

    base = env.unwrapped
    model = base.model
    for _ in range(SAMPLES):
        qpos = base.init_qpos + rng.uniform(-1.5, 1.5, model.nq)
        qvel = rng.normal(0.0, 8.0, model.nv)
        for j in range(model.njnt):
            if model.jnt_type[j] in (0, 1):  # free / ball: keep the quaternion a unit one
                a = model.jnt_qposadr[j] + (3 if model.jnt_type[j] == 0 else 0)
                qpos[a : a + 4] /= np.linalg.norm(qpos[a : a + 4])
        base.set_state(qpos, qvel)
        mujoco.mj_rnePostConstraint(model, base.data)
        yield np.asarray(base._get_obs(), dtype=float).ravel()


def label_observation(env, schema: StateSchema, seed: int = 0) -> list[Candidate | None]:
    """For each obs element, the candidate it equals in every sampled state (None if none does)."""
    rng = np.random.default_rng(seed)
    obs_rows: list[np.ndarray] = []
    cand_rows: list[np.ndarray] = []
    cands: list[Candidate] = []
    for obs in _random_states(env, rng):
        cands, values = _candidates(env.unwrapped.data, schema)
        obs_rows.append(obs)
        cand_rows.append(values)
    obs_m, cand_m = np.array(obs_rows).T, np.array(cand_rows).T
    index = {(c.family, c.index): k for k, c in enumerate(cands)}
    hits = [
        set(np.flatnonzero(np.all(np.abs(cand_m - row) <= 1e-6 * (1 + np.abs(row)), axis=1)).tolist()) for row in obs_m
    ]
    picks: list[int | None] = [next(iter(hit)) if len(hit) == 1 else None for hit in hits]
    changed = True
    while changed:  # ambiguous elements (zeros, saturated clips) take the label that continues a neighbour
        changed = False
        for i, hit in enumerate(hits):
            if picks[i] is not None:
                continue
            for j, step in ((i - 1, 1), (i + 1, -1)):
                pick = picks[j] if 0 <= j < len(picks) else None
                if pick is not None:
                    near = index.get((cands[pick].family, cands[pick].index + step))
                    if near in hit:
                        picks[i], changed = near, True
                        break
    for i, hit in enumerate(hits):
        if picks[i] is None and hit and np.any(obs_m[i]):
            family = [k for k in sorted(hit) if cands[k].family == cands[min(hit)].family]
            picks[i] = family[-1]  # coincident bodies: the deepest one
    return [cands[k] if k is not None else None for k in picks]


def _obs_lines(labels: list[Candidate | None]) -> list[str]:
    """Runs of consecutive elements of one family, as `obs[a:b] = family[i:j] (labels)`."""
    lines, start = [], 0
    for end in range(1, len(labels) + 1):
        cur = labels[start]
        nxt = labels[end] if end < len(labels) else None
        prev = labels[end - 1]
        same = (
            nxt is not None
            and cur is not None
            and prev is not None
            and nxt.family == cur.family
            and (nxt.index == prev.index + 1)
        )
        if end < len(labels) and (same or (cur is None and nxt is None)):
            continue
        span = f"obs[{start}]" if end - start == 1 else f"obs[{start}:{end}]"
        if cur is None:
            lines.append(f"- {span} = unlabelled")
        else:
            names = [c.label for c in labels[start:end] if c is not None]
            idx = f"[{cur.index}]" if end - start == 1 else f"[{cur.index}:{cur.index + end - start}]"
            idx = idx if cur.indexed else ""
            shown = ", ".join(names) if len(names) <= 12 else _group_names(names)
            lines.append(f"- {span} = {cur.family}{idx} ({shown})")
        start = end
    return lines


def _group_names(names: list[str]) -> str:
    """Long label lists as `owner: a, b, ...` groups (e.g. 6 contact-force entries per body)."""
    owners: dict[str, list[str]] = {}
    for name in names:
        owner, _, part = name.rpartition(".")
        owners.setdefault(owner, []).append(part)
    parts = {tuple(p) for p in owners.values()}
    if len(parts) == 1:
        return f"{'/'.join(next(iter(parts)))} for each of: {', '.join(owners)}"
    return ", ".join(names)


def _termination(base, schema: StateSchema) -> str:
    cls = type(base).__name__
    if getattr(base, "_terminate_when_unhealthy", True) is False:
        return "never ends early (falls do not end the episode)."
    if cls in _TERMINATION_RULES:
        return _TERMINATION_RULES[cls]
    never = next((_NEVER_TERMINATES[c.__name__] for c in type(base).__mro__ if c.__name__ in _NEVER_TERMINATES), None)
    if never is not None:
        return never
    z, angle, state = (
        getattr(base, a, None) for a in ("_healthy_z_range", "_healthy_angle_range", "_healthy_state_range")
    )
    if z is None:
        return "no rule known to this tool; the env may end an episode early."
    if base.model.jnt_type[0] == 0:  # free root joint: z is qpos[2]
        return f"the episode ends when the root height qpos[2] leaves {_range(*z)} or the state is not finite."
    names = _slot_labels(schema, _FREE_QPOS, "qpos")
    rules = [f"qpos[1] ({names[1]}, height) in {_range(*z)}"]
    if angle is not None:
        rules.append(f"qpos[2] ({names[2]}, pitch, rad) in {_range(*angle)}")
    if state is not None:
        rules.append(f"every entry of qpos[2:] and qvel in {_range(*state)}")
    return "the episode ends as soon as any of these fails: " + "; ".join(rules) + "."


def _axis_name(v: np.ndarray) -> str:
    """A world direction as `+x`/`-z` when it is (nearly) one axis, else as a rounded vector."""
    k = int(np.argmax(np.abs(v)))
    if abs(v[k]) > 0.999 * np.linalg.norm(v):
        return f"{'+' if v[k] > 0 else '-'}{'xyz'[k]}"
    return "(" + ", ".join(f"{c + 0.0:.2f}" for c in np.round(v, 2)) + ")"


def sign_words(kind: str, world_axis: np.ndarray, root: bool = False) -> str:
    """What a positive joint value does, in words, for a slide or hinge joint with this world axis."""
    u = world_axis / (np.linalg.norm(world_axis) or 1.0)
    if kind == "slide":
        return f"positive moves the body along {_axis_name(u)}"
    moves: list[str] = []
    for k in (2, 0, 1):  # how the world's +z, +x, +y directions turn under a small positive rotation
        e = np.eye(3)[k]
        turn = np.cross(u, e)
        if np.linalg.norm(turn) > 0.1 and len(moves) < 2:  # a direction within ~6 degrees of the axis barely turns
            moves.append(f"{'+' + 'xyz'[k]} turns toward {_axis_name(turn)}")
    words = f"positive rotates by the right-hand rule about {_axis_name(u)}: " + ", ".join(moves)
    if root and _axis_name(u) in ("+y", "-y"):
        forward = _axis_name(u) == "+y"
        words += (
            f" (pitches the body's top toward {'+x' if forward else '-x'}: a forward, nose-down rotation for a body"
            f" facing +x; a backward rotation (backflip) makes it {'decrease' if forward else 'increase'})"
        )
    return words


def _axis_words(base, j: int) -> str:
    """`; axis (0, 1, 0) -> world +y: positive ...` for a hinge or slide joint at the reset pose."""
    import mujoco

    model = base.model
    kind = JOINT_TYPE_NAMES[int(model.jnt_type[j])]
    if kind not in ("hinge", "slide"):
        return "; orientation as a unit quaternion (w, x, y, z) in qpos" if kind in ("free", "ball") else ""
    data = mujoco.MjData(model)
    data.qpos[:] = getattr(base, "init_qpos", base.data.qpos)
    mujoco.mj_forward(model, data)
    local = model.jnt_axis[j]
    world = data.xmat[model.jnt_bodyid[j]].reshape(3, 3) @ local
    body = "(" + " ".join(f"{c:g}" for c in local) + ")"
    root = model.body_parentid[model.jnt_bodyid[j]] == 0
    return f"; axis {body} -> world {_axis_name(world)}; {sign_words(kind, world, bool(root))}"


_RESET_NOISE = {
    "HopperEnv": "qpos and qvel each + uniform(-{s}, {s}) per entry",
    "Walker2dEnv": "qpos and qvel each + uniform(-{s}, {s}) per entry",
    "HalfCheetahEnv": "qpos + uniform(-{s}, {s}) per entry, qvel + {s} x standard normal",
    "AntEnv": "qpos + uniform(-{s}, {s}) per entry, qvel + {s} x standard normal",
    "SwimmerEnv": "qpos and qvel each + uniform(-{s}, {s}) per entry",
    "InvertedDoublePendulumEnv": "qpos + uniform(-0.1, 0.1) per entry, qvel + 0.1 x standard normal",
    "InvertedPendulumEnv": "qpos and qvel each + uniform(-0.01, 0.01) per entry",
    "ReacherEnv": "arm qpos + uniform(-0.1, 0.1); the target is placed uniformly at random within 0.2 m of the"
    " origin (x, y); arm qvel + uniform(-0.005, 0.005)",
    "PusherEnv": "arm at the pose above; the object is placed at random with x in [-0.3, 0], y in [-0.2, 0.2], at"
    " least 0.17 m from the goal; arm qvel + uniform(-0.005, 0.005)",
}


def _geom_bottom(model, data, g: int) -> float:
    """The lowest world z of a geom (sphere, capsule, cylinder, box, ellipsoid; else its centre)."""
    size, rot, z = model.geom_size[g], data.geom_xmat[g].reshape(3, 3), data.geom_xpos[g][2]
    kind = int(model.geom_type[g])
    if kind == 2:  # sphere
        return z - size[0]
    if kind in (3, 5):  # capsule, cylinder: radius size[0], half-length size[1] along the local z axis
        az = abs(rot[2, 2])
        radial = size[0] if kind == 3 else size[0] * np.sqrt(max(0.0, 1 - az * az))
        return z - radial - size[1] * az
    if kind in (4, 6):  # ellipsoid (bounded by its box), box
        return z - float(np.abs(rot[2]) @ size[:3])
    return z


def _reset_sections(base, schema: StateSchema) -> list[str]:
    """The reset pose (before noise), its noise, and the ground contact geoms with their heights."""
    import mujoco

    model = base.model
    data = mujoco.MjData(model)
    data.qpos[:], data.qvel[:] = base.init_qpos, base.init_qvel
    mujoco.mj_forward(model, data)
    names = _slot_labels(schema, _FREE_QPOS, "qpos")
    scale = getattr(base, "_reset_noise_scale", None)
    noise = _RESET_NOISE.get(type(base).__name__, "noise unknown to this tool")
    lines = [
        "## Reset pose (before noise; qvel 0)",
        "- qpos: " + ", ".join(f"{n} {_fmt(v)}" for n, v in zip(names, base.init_qpos, strict=False)),
        "- body positions (x, y, z): "
        + ", ".join(
            f"{schema.body_names[b]} ({', '.join(_fmt(round(c, 4) + 0.0) for c in data.xpos[b])})"
            for b in range(1, model.nbody)
        ),
        f"- reset noise: {noise.format(s=_fmt(scale) if scale is not None else '?')}",
    ]
    floor = [g for g in range(model.ngeom) if model.geom_bodyid[g] == 0 and model.geom_type[g] == 0]
    if not floor:
        return lines
    ground = float(data.geom_xpos[floor[0]][2])
    geoms = [
        g for g in range(model.ngeom) if model.geom_bodyid[g] != 0 and model.geom_contype[g] | model.geom_conaffinity[g]
    ]
    lowest = min((_geom_bottom(model, data, g) for g in geoms), default=ground)
    feet = [g for g in geoms if _geom_bottom(model, data, g) <= lowest + 0.02]
    shown = ", ".join(
        f"{mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_GEOM, g) or f'geom {g}'} on {schema.body_names[model.geom_bodyid[g]]}"
        f" (lowest point z {_fmt(round(_geom_bottom(model, data, g), 4) + 0.0)})"
        for g in feet
    )
    lines += [
        f"## Ground contact (the floor is the plane z = {_fmt(ground)})",
        f"- touching or nearest the floor at reset: {shown}.",
        "- The State API has no contact list: judge ground contact from a body's height (`state.body(name).pos[2]`)"
        " against its height at reset above, or from `cfrc_ext` in the observation where it is listed.",
    ]
    return lines


def _model_sections(base, schema: StateSchema) -> list[str]:
    model = base.model
    bodies = schema.body_names
    lines = [
        "## Bodies (name <- parent)",
        ", ".join(f"{bodies[i]} <- {bodies[model.body_parentid[i]]}" for i in range(1, model.nbody)),
    ]
    lines.append(
        "## Joints (name: type, qpos index, qvel index, range; axis in its body's frame -> in the world frame at the"
        " reset pose; what a positive value does)"
    )
    for j, joint in enumerate(schema.joints.values()):
        qp, qv = joint.qpos, joint.qvel
        qps = f"qpos[{qp.start}]" if qp.stop - qp.start == 1 else f"qpos[{qp.start}:{qp.stop}]"
        qvs = f"qvel[{qv.start}]" if qv.stop - qv.start == 1 else f"qvel[{qv.start}:{qv.stop}]"
        limit = _range(*model.jnt_range[j]) if model.jnt_limited[j] else "unlimited"
        unit = " rad" if JOINT_TYPE_NAMES[int(model.jnt_type[j])] in ("hinge", "ball") and model.jnt_limited[j] else ""
        lines.append(f"- {joint.name}: {joint.kind}, {qps}, {qvs}, {limit}{unit}{_axis_words(base, j)}")
    if any(model.jnt_type[j] == 3 and not model.jnt_limited[j] for j in range(model.njnt)):
        lines.append(
            "Hinge angles are not wrapped: an unlimited hinge keeps counting past +-pi (one full turn in the positive"
            " direction adds 2*pi = 6.283 rad). Child joint axes turn with their parent bodies; body orientations"
            " (`.quat`, `.xmat`) are wrapped by nature."
        )
    if schema.site_names:
        lines += ["## Sites", ", ".join(schema.site_names)]
    lines.append("## Actuators (action index -> actuator -> joint, control range, gear)")
    joint_names = list(schema.joints)
    for a in range(model.nu):
        target = joint_names[model.actuator_trnid[a, 0]] if model.actuator_trntype[a] == 0 else "(not a joint)"
        lo, hi = model.actuator_ctrlrange[a]
        lines.append(
            f"- action[{a}] -> {schema.actuator_names[a]} -> {target}, {_range(lo, hi)}, gear {_fmt(model.actuator_gear[a, 0])}"
        )
    return lines


def _state_api(schema: StateSchema | None) -> list[str]:
    lines = [
        "## Reading the state: compute_reward(state, action, next_state) -> (total, {name: value})",
        "`state` is before the action, `next_state` after it (one control step of dt later).",
        "`action` is the array sent to the actuators, in the order above.",
        "- `state.obs`: the observation above (numpy array); `state.dt`: control step (s); `state.time`: sim time (s).",
    ]
    if schema is None:
        return lines
    body = schema.body_names[1] if len(schema.body_names) > 1 else schema.body_names[0]
    joint = next(
        (j for j in schema.joints.values() if j.kind in ("hinge", "slide")), next(iter(schema.joints.values()))
    )
    lines += [
        "- `state.qpos`, `state.qvel`: generalized positions/velocities (indices above).",
        f'- `state.body("{body}")`: `.pos` world xyz (m), `.quat` (w,x,y,z), `.xmat` 3x3 rotation (column 2 = body up axis),'
        " `.linvel` world linear velocity (m/s), `.angvel` world angular velocity (rad/s).",
        f'- `state.joint("{joint.name}")`: `.qpos`, `.qvel` (floats; arrays for free/ball joints).',
        "- World frame: z is up; gravity points to -z.",
    ]
    if schema.site_names:
        lines.append(f'- `state.site("{schema.site_names[0]}").pos`: world xyz of a site.')
    return lines


def _observation_head(obs) -> list[str]:
    """The observation's size; a dict observation's parts and where a reward finds each."""
    if not isinstance(obs, dict):
        return [f"- Observation: {np.asarray(obs).size} dims"]
    where = {"observation": "state.obs", "desired_goal": "state.goal", "achieved_goal": "state.achieved_goal"}
    parts = ", ".join(
        f"`{k}` ({np.asarray(v).size} dims, `{where.get(k, f'state.parts[{k!r}]')}`)" for k, v in sorted(obs.items())
    )
    return [f"- Observation: a dict of {parts}; the policy sees them flattened in that order"]


def _goal_api(obs) -> list[str]:
    if not isinstance(obs, dict):
        return []
    return [
        "- `state.goal`, `state.achieved_goal`: the desired and the achieved goal (numpy arrays; the task is done"
        " when they match); `state.parts`: every part of the dict observation by name."
    ]


def describe(spec: TaskSpec, seed: int = 0) -> str:
    """The compact plain-text description of the task's environment shown to the LLM."""
    env = make_env(spec)
    try:
        obs, _ = env.reset(seed=seed)
        base, schema = env.unwrapped, schema_for(env)
        limit = getattr(env.spec, "max_episode_steps", None) if env.spec else None
        limit = limit or getattr(env, "_max_episode_steps", None)
        dt_value, dt_source = control_period(env)
        dt = dt_value if dt_source != "none" else None
        act = env.action_space
        head = [f"# Environment: {spec.env}"]
        if dt:
            timing = f"- Control step dt = {_fmt(dt)} s"
            skip = getattr(base, "frame_skip", None) or getattr(base, "n_substeps", None)
            if schema is not None and skip:
                timing += f" (physics timestep {_fmt(base.model.opt.timestep)} x {skip} substeps)"
            elif schema is None:
                timing += f" (from {dt_source})"
            head.append(timing)
        else:
            head.append("- No physical control period: this env's dynamics are per step; `state.dt` is 1.0 (one step).")
        if limit:
            head.append(f"- Episode: time limit {limit} steps" + (f" ({_fmt(limit * dt)} s)" if dt else ""))
        if schema is not None:
            head.append(f"- Early termination: {_termination(base, schema)}")
        head.append(
            f"- Action: {act.shape[0] if act.shape else act} dims"
            + (f", each in {_range(act.low.min(), act.high.max())}" if hasattr(act, "low") else "")
        )
        head += _observation_head(obs)
        known = known_layout_lines(base)
        if schema is None:
            space = env.observation_space
            if hasattr(space, "low"):
                head.append(f"  bounds low {np.round(space.low, 3).tolist()}, high {np.round(space.high, 3).tolist()}")
            head.append(
                "- Not a MuJoCo env: no named bodies, joints or sites; read `state.obs` only (by index, layout below)."
            )
            if known:
                layout = ["## Observation layout (from the env's documentation)", *known]
                layout += ["## Action (from the env's documentation)", *(known_action_lines(base) or [])]
            else:
                layout = ["## Observation code (the env's source, reward lines removed)", *source_without_reward(base)]
            return "\n".join(head + layout + _state_api(None)) + "\n"
        if known:
            obs_part = ["## Observation layout (from the env's documentation)", *known]
        else:
            labels = label_observation(env, schema, seed)
            obs_part = [
                f"## Observation layout ({sum(c is not None for c in labels)} of {len(labels)} dims named)",
                *_obs_lines(labels),
            ]
        body = _model_sections(base, schema) + (_reset_sections(base, schema) if not known else [])
        actions = known_action_lines(base)
        if actions:  # the policy moves a mocap hand: the model's actuators are not the action
            cut = next((i for i, line in enumerate(body) if line.startswith("## Actuators")), len(body))
            body = [*body[:cut], "## Action (from the env's documentation)", *actions]
        extra = manipulation_lines(schema) if known or spec.imports else []
        return "\n".join(head + body + obs_part + _state_api(schema) + extra + _goal_api(obs)) + "\n"
    finally:
        env.close()
