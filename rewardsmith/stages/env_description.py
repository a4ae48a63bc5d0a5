"""The environment description the LLM sees (Text2Reward style), generated from the MuJoCo model.

It names bodies, joints, sites and actuators, the action and observation layouts, the timestep, the
time limit and the termination rule, and how a reward reads the `State`. It never shows the env's own
reward code, reward weights or `info` keys. The observation layout is found by matching
(`rewardsmith.stages.obs_labels`).
"""

from __future__ import annotations

import numpy as np

from rewardsmith.reward.state import JOINT_TYPE_NAMES, StateSchema, control_period, schema_for
from rewardsmith.stages.obs_labels import FREE_QPOS, fmt, label_observation, obs_lines, slot_labels, value_range
from rewardsmith.stages.obs_layouts import (
    known_action_lines,
    known_layout_lines,
    manipulation_lines,
    source_without_reward,
)
from rewardsmith.task import TaskSpec, make_env

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
        return f"the episode ends when the root height qpos[2] leaves {value_range(*z)} or the state is not finite."
    names = slot_labels(schema, FREE_QPOS, "qpos")
    rules = [f"qpos[1] ({names[1]}, height) in {value_range(*z)}"]
    if angle is not None:
        rules.append(f"qpos[2] ({names[2]}, pitch, rad) in {value_range(*angle)}")
    if state is not None:
        rules.append(f"every entry of qpos[2:] and qvel in {value_range(*state)}")
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
    names = slot_labels(schema, FREE_QPOS, "qpos")
    scale = getattr(base, "_reset_noise_scale", None)
    noise = _RESET_NOISE.get(type(base).__name__, "noise unknown to this tool")
    lines = [
        "## Reset pose (before noise; qvel 0)",
        "- qpos: " + ", ".join(f"{n} {fmt(v)}" for n, v in zip(names, base.init_qpos, strict=False)),
        "- body positions (x, y, z): "
        + ", ".join(
            f"{schema.body_names[b]} ({', '.join(fmt(round(c, 4) + 0.0) for c in data.xpos[b])})"
            for b in range(1, model.nbody)
        ),
        f"- reset noise: {noise.format(s=fmt(scale) if scale is not None else '?')}",
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
        f" (lowest point z {fmt(round(_geom_bottom(model, data, g), 4) + 0.0)})"
        for g in feet
    )
    lines += [
        f"## Ground contact (the floor is the plane z = {fmt(ground)})",
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
        limit = value_range(*model.jnt_range[j]) if model.jnt_limited[j] else "unlimited"
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
            f"- action[{a}] -> {schema.actuator_names[a]} -> {target}, {value_range(lo, hi)}, gear {fmt(model.actuator_gear[a, 0])}"
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
            timing = f"- Control step dt = {fmt(dt)} s"
            skip = getattr(base, "frame_skip", None) or getattr(base, "n_substeps", None)
            if schema is not None and skip:
                timing += f" (physics timestep {fmt(base.model.opt.timestep)} x {skip} substeps)"
            elif schema is None:
                timing += f" (from {dt_source})"
            head.append(timing)
        else:
            head.append("- No physical control period: this env's dynamics are per step; `state.dt` is 1.0 (one step).")
        if limit:
            head.append(f"- Episode: time limit {limit} steps" + (f" ({fmt(limit * dt)} s)" if dt else ""))
        if schema is not None:
            head.append(f"- Early termination: {_termination(base, schema)}")
        head.append(
            f"- Action: {act.shape[0] if act.shape else act} dims"
            + (f", each in {value_range(act.low.min(), act.high.max())}" if hasattr(act, "low") else "")
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
                *obs_lines(labels),
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
