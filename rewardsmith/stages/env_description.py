"""The environment description the LLM sees (Text2Reward style), generated from the MuJoCo model.

It names bodies, joints, sites and actuators, the action and observation layouts, the timestep, the
time limit and the termination rule, and how a reward reads the `State`. It never shows the env's own
reward code, reward weights or `info` keys. The observation layout is found by matching
(`rewardsmith.stages.obs_labels`).
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np

from rewardsmith.errors import RewardsmithError, TaskSpecError
from rewardsmith.formatting import plural
from rewardsmith.reward.state import StateSchema, control_period, physics_env, schema_for
from rewardsmith.stages.env_hand import hand_lines, hand_parts
from rewardsmith.stages.env_joints import actuator_lines, joint_lines, sign_words
from rewardsmith.stages.env_markers import RenderOnly, render_only, render_only_lines
from rewardsmith.stages.env_maze import maze_lines
from rewardsmith.stages.obs_labels import (
    FREE_QPOS,
    documented,
    fmt,
    label_observation,
    obs_lines,
    slot_labels,
    value_range,
)
from rewardsmith.stages.obs_layouts import (
    DOCUMENTED_SPANS,
    TERMINATIONS,
    braces_note,
    by_prefix,
    handles_objects,
    known_action_lines,
    known_layout_lines,
    layout_key,
    manipulation_lines,
    source_without_reward,
)
from rewardsmith.stages.reset_noise import measure_resets, reset_noise_text
from rewardsmith.task import TaskSpec, make_env

__all__ = ["describe", "description_for_run", "sign_words"]

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


FLOOR_OUT_OF_REACH = 0.5
"""A manipulation description leaves out the ground contact section where every geom is this far (m) above the
floor at reset (Adroit's hand and table stand 0.95 m above it)."""
MAX_BODIES = 20
"""Above this many bodies the reset pose gives the positions of the leaf bodies and the world's children only."""
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


def _qpos_text(names: list[str], qpos: np.ndarray) -> str:
    """`a 0, b 1.25, ...`, or `0 except b 1.25` when most entries are 0."""
    nonzero = [f"{n} {fmt(v)}" for n, v in zip(names, qpos, strict=False) if v != 0]
    if len(nonzero) * 2 < len(names):
        return "0 for every entry" + (f" except {', '.join(nonzero)}" if nonzero else "")
    return ", ".join(f"{n} {fmt(v)}" for n, v in zip(names, qpos, strict=False))


def _reset_sections(base, schema: StateSchema, seed: int, contacts: bool = True) -> list[str]:
    """The reset pose (before noise), its noise (known from the env's source, else measured over a few resets, after
    which `base` is reset with `seed` again), and the ground contact geoms with their heights; `contacts`: with the
    contact API (a manipulation description has it in its own section, and no ground section where the floor is out
    of reach, `FLOOR_OUT_OF_REACH`)."""
    import mujoco

    known = _RESET_NOISE.get(type(base).__name__)
    scale = getattr(base, "_reset_noise_scale", None)
    physics = physics_env(base)  # where the reset pose before noise is kept (a maze's inner env)
    init_qpos, init_qvel = (
        (physics.init_qpos, physics.init_qvel)
        if physics is not None
        else (base.data.qpos.copy(), np.zeros_like(base.data.qvel))
    )
    noise = (
        known.format(s=fmt(scale) if scale is not None else "?")
        if known
        else reset_noise_text(measure_resets(base, schema, seed), init_qpos, init_qvel)
    )

    model = base.model
    data = mujoco.MjData(model)
    data.qpos[:], data.qvel[:] = init_qpos, init_qvel
    mujoco.mj_forward(model, data)
    names = slot_labels(schema, FREE_QPOS, "qpos")
    shown, digits = list(range(1, model.nbody)), 4
    if len(shown) > MAX_BODIES:  # a hand: its tips and its bases (to the mm); the links lie on the lines joining them
        parents = set(model.body_parentid[1:].tolist())
        shown, digits = [b for b in shown if b not in parents or model.body_parentid[b] == 0], 3
    lines = [
        "## Reset pose (before noise; qvel 0)"
        if physics is base
        else "## Reset pose (as reset left it, qvel 0)"
        if physics is None
        else "## Initial pose of the wrapped env (qvel 0; each reset places it anew: the reset noise line below)",
        "- qpos: " + _qpos_text(names, init_qpos),
        f"- body positions (x, y, z){' of the leaf bodies and the world children' if digits == 3 else ''}: "
        + ", ".join(
            f"{schema.body_names[b]} ({', '.join(fmt(round(c, digits) + 0.0) for c in data.xpos[b])})" for b in shown
        ),
        f"- reset noise: {noise}",
    ]
    floor = [g for g in range(model.ngeom) if model.geom_bodyid[g] == 0 and model.geom_type[g] == 0]
    if not floor:
        return lines
    ground = float(data.geom_xpos[floor[0]][2])
    geoms = [
        g for g in range(model.ngeom) if model.geom_bodyid[g] != 0 and model.geom_contype[g] | model.geom_conaffinity[g]
    ]
    if not geoms:  # nothing of the robot collides (Swimmer's geoms): no contact to tell, and no foot to name
        return lines
    lowest = min(_geom_bottom(model, data, g) for g in geoms)
    if not contacts and lowest - ground > FLOOR_OUT_OF_REACH:  # a hand above a table: the floor plays no part
        return lines
    feet = [g for g in geoms if _geom_bottom(model, data, g) <= lowest + 0.02]
    touching = ", ".join(
        f"{mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_GEOM, g) or f'geom {g}'} on {schema.body_names[model.geom_bodyid[g]]}"
        f" (lowest point z {fmt(round(_geom_bottom(model, data, g), 4) + 0.0)})"
        for g in feet
    )
    api = (
        "- Contacts: `state.touching(a, b=None)` (bool) and `state.contact_force(a, b=None)` (normal force, N, summed)"
        " take geom or body names (b=None: against anything, e.g. the floor geom above); `state.contacts()` lists every"
        " active contact as (geom1, geom2, body1, body2, force, pos). "
        if contacts
        else "- "
    )
    lines += [
        f"## Ground contact (the floor is the plane z = {fmt(ground)})",
        f"- touching or nearest the floor at reset: {touching}.",
        api
        + "A body's height (`state.body(name).pos[2]`) against its height at reset above also tells ground contact.",
    ]
    return lines


def _model_sections(base, schema: StateSchema, qpos: np.ndarray | None, arm: set[int]) -> list[str]:
    """Bodies, joints, sites and actuators; the bodies in `arm` (a mocap-driven arm's links) and their joints
    are left out."""
    model = base.model
    bodies = schema.body_names
    shown = [i for i in range(1, model.nbody) if i not in arm]
    if len(shown) <= MAX_BODIES:
        lines = [
            "## Bodies (name <- parent)",
            ", ".join(f"{bodies[i]} <- {bodies[model.body_parentid[i]]}" for i in shown),
        ]
    else:  # a hand: each finger is one chain, written once from its tip down
        chains: list[list[int]] = []
        for i in shown:
            parent = int(model.body_parentid[i])
            if chains and chains[-1][-1] == parent:
                chains[-1].append(i)
            else:
                chains.append([parent, i])
        lines = [
            "## Bodies (child <- parent chains)",
            ", ".join(" <- ".join(bodies[b] for b in reversed(chain)) for chain in chains),
        ]
    skip = {name for j, name in enumerate(schema.joints) if int(model.jnt_bodyid[j]) in arm}
    lines += joint_lines(base, schema, qpos, skip)
    if schema.site_names:
        sites = by_prefix(schema.site_names)
        short = "P_{a, b}` = P_a, P_b" if "}{" in sites else "Prefix_{a, b}` = Prefix_a, Prefix_b"
        lines += [f"## Sites (`{short}{braces_note(sites)})", sites]
    return lines + actuator_lines(base, schema)


def _state_api(
    schema: StateSchema | None,
    hidden: frozenset[str] | set[str] = frozenset(),
    *,
    discrete: bool = False,
    markers: RenderOnly | None = None,
) -> list[str]:
    """How a reward reads the state; `hidden`: joints the description leaves out (a mocap arm's); `discrete`: the
    action is a choice, not an array of controls; `markers`: names not to use as the examples (they move only when
    the env renders)."""
    action = (
        "the chosen action's number as a 0-d float array (`int(action)` gives it)"
        if discrete
        else "the array sent to the actuators, in the order above"
    )
    lines = [
        "## Reading the state: compute_reward(state, action, next_state) -> (total, {name: value})",
        f"`state`/`next_state`: before/after the action, one control step dt apart; `action`: {action}.",
        "- `state.obs` (the observation above)"
        + (", `state.qpos`, `state.qvel` (generalized positions/velocities, indices above)" if schema else "")
        + ": numpy arrays; `state.dt`: control step (s); `state.time`: sim time (s).",
    ]
    if schema is None:
        return lines
    markers = markers or RenderOnly([], [], [])
    body = next((n for n in schema.body_names[1:] if n not in markers.bodies), schema.body_names[0])
    hidden = set(hidden) | set(markers.joints)
    shown = [j for j in schema.joints.values() if j.name not in hidden] or list(schema.joints.values())
    joint = next((j for j in shown if j.kind in ("hinge", "slide")), shown[0])
    lines += [
        f'- `state.body("{body}")`: `.pos` world xyz (m), `.quat` (w,x,y,z), `.xmat` 3x3 rotation (column 2 = body up axis),'
        " `.linvel`, `.angvel`: world velocity (m/s, rad/s).",
        f'- `state.joint("{joint.name}")`: `.qpos`, `.qvel` (floats; arrays for free/ball joints).',
        "- World frame: z is up; gravity points to -z.",
    ]
    site = next((n for n in schema.site_names if n not in markers.sites), None)
    if site:
        lines.append(f'- `state.site("{site}")`: `.pos` world xyz, `.xmat` 3x3 world rotation.')
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


def _bounds(low: np.ndarray, high: np.ndarray) -> str:
    """A Box's bounds as the description shows them: one range where every dim shares it, else per dim."""
    low, high = (np.round(np.asarray(b, dtype=float).ravel(), 3) + 0.0 for b in (low, high))
    if low.size > 1 and np.all(low == low[0]) and np.all(high == high[0]):
        return f"bounds: each dim in {value_range(low[0], high[0])}"
    return f"bounds low [{', '.join(fmt(v) for v in low)}], high [{', '.join(fmt(v) for v in high)}]"


def _goal_api(obs) -> list[str]:
    if not isinstance(obs, dict):
        return []
    return [
        "- `state.goal`, `state.achieved_goal`: the desired and the achieved goal (numpy arrays; the env's own task is done"
        " when they match); `state.parts`: every part of the dict observation by name."
    ]


def description_for_run(spec: TaskSpec) -> str:
    """`describe(spec)`, for a run or a spec check: a failure to read the env (a user's env this tool does not know)
    becomes a clear error naming the command that shows where it failed, before anything is spent."""
    try:
        return describe(spec)
    except RewardsmithError:
        raise
    except Exception as e:
        raise TaskSpecError(
            f"{spec.name}: the environment description the LLM reads could not be built from {spec.env}"
            f" ({type(e).__name__}: {e}); `rewardsmith describe {spec.command_target()}` shows where it failed"
        ) from e


def describe(spec: TaskSpec, seed: int = 0) -> str:
    """The compact plain-text description of the task's environment shown to the LLM."""
    env = make_env(spec)
    try:
        obs, _ = env.reset(seed=seed)
        base, schema = env.unwrapped, schema_for(env)
        # the pose axes are read in: a locomotion env's reset pose before noise, else the state reset() left
        pose = base.init_qpos if hasattr(base, "_reset_noise_scale") else getattr(base, "data", None)
        pose = np.array(getattr(pose, "qpos", pose)) if pose is not None else None
        limit = getattr(env.spec, "max_episode_steps", None) if env.spec else None
        limit = limit or getattr(env, "_max_episode_steps", None)
        dt_value, dt_source = control_period(env)
        dt = dt_value if dt_source != "none" else None
        act = env.action_space
        discrete = isinstance(act, gym.spaces.Discrete)
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
        elif type(base).__name__ in TERMINATIONS:
            head.append(f"- Early termination: {TERMINATIONS[type(base).__name__]}")
        head.append(
            f"- Action: one of {act.n} discrete choices, {act.start} to {act.start + act.n - 1} (what each does below)"
            if discrete
            else f"- Action: {plural(act.shape[0], 'dim') if act.shape else act}"
            + (f", each in {value_range(act.low.min(), act.high.max())}" if hasattr(act, "low") else "")
        )
        head += _observation_head(obs)
        known = known_layout_lines(base)
        if schema is None:
            space = env.observation_space
            if hasattr(space, "low"):
                head.append(f"  {_bounds(space.low, space.high)}")
            head.append(
                "- Not a MuJoCo env: no named bodies, joints or sites; read `state.obs` only (by index, layout below)."
            )
            if known:
                layout = ["## Observation layout (from the env's documentation)", *known]
                layout += ["## Action (from the env's documentation)", *(known_action_lines(base) or [])]
            else:
                layout = ["## Observation code (the env's source, reward lines removed)", *source_without_reward(base)]
            return "\n".join(head + layout + _state_api(None, discrete=discrete)) + "\n"
        if known:
            obs_part = ["## Observation layout (from the env's documentation)", *known]
        else:
            labels = documented(label_observation(env, schema, seed), DOCUMENTED_SPANS.get(type(base).__name__, []))
            obs_part = [
                f"## Observation layout ({sum(c is not None for c in labels)} of {len(labels)} dims named)",
                *obs_lines(labels),
            ]
        actions = known_action_lines(base)
        parts = hand_parts(base.model, schema) if actions else None
        arm = parts[1] if parts else set()
        hidden = {name for j, name in enumerate(schema.joints) if int(base.model.jnt_bodyid[j]) in arm}
        maze = maze_lines(base)
        manipulation = bool(known or handles_objects(base.model)) and not maze  # a maze is walked through
        markers = render_only(base, schema)
        body = _model_sections(base, schema, pose, arm)
        body += _reset_sections(base, schema, seed, contacts=not manipulation) if not known else []
        body += maze
        if actions:  # the policy moves a mocap hand: the model's actuators are not the action
            cut = next((i for i, line in enumerate(body) if line.startswith("## Actuators")), len(body))
            body = [*body[:cut], "## Action (from the env's documentation)", *actions]
        body += render_only_lines(markers, isinstance(obs, dict))
        hand = hand_lines(env, schema, layout_key(base) or "", seed) if parts else []
        extra = manipulation_lines(schema, fingers=not hand) if manipulation else []
        api = _state_api(schema, hidden, markers=markers)
        return "\n".join(head + body + hand + obs_part + api + extra + _goal_api(obs)) + "\n"
    finally:
        env.close()
