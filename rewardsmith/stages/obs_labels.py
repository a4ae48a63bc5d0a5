"""The observation layout of a MuJoCo env, found by matching: each obs element is compared with candidate
quantities (qpos, qvel, sin/cos, body positions and their differences, contact forces, clipped variants) over a few
random states, and labelled with the one it equals in all of them; what matches nothing is "unlabelled". Used by
`rewardsmith.stages.env_description`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rewardsmith.reward.state import StateSchema, physics_env

FREE_QPOS = ("x", "y", "z", "qw", "qx", "qy", "qz")
FREE_QVEL = ("vx", "vy", "vz", "wx", "wy", "wz")
CINERT = ("Ixx", "Iyy", "Izz", "Ixy", "Ixz", "Iyz", "mx", "my", "mz", "m")
"""MuJoCo's `cinert` per body: its inertia about its tree's centre of mass (kg m^2), its mass times its own centre's
offset from that centre (kg m), its mass (kg)."""
CVEL = ("wx", "wy", "wz", "vx", "vy", "vz")
"""MuJoCo's `cvel` per body: angular (rad/s), then linear (m/s) velocity, at its tree's centre of mass."""
CFRC = ("tx", "ty", "tz", "fx", "fy", "fz")
SAMPLES = 10


def fmt(x: float) -> str:
    """A number as the description shows it (4 significant digits, inf as "inf")."""
    return "inf" if np.isposinf(x) else "-inf" if np.isneginf(x) else f"{x:.4g}"


def value_range(lo: float, hi: float) -> str:
    """`[lo, hi]` as the description shows it."""
    return f"[{fmt(lo)}, {fmt(hi)}]"


def slot_labels(schema: StateSchema, free: tuple[str, ...], which: str) -> list[str]:
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

    qpos_l, qvel_l = slot_labels(schema, FREE_QPOS, "qpos"), slot_labels(schema, FREE_QVEL, "qvel")
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
    cfrc = [f"{b}.{c}" for b in bodies for c in CFRC]
    add("cfrc_ext", data.cfrc_ext[1:], cfrc, False)
    add("clip(cfrc_ext, -1, 1)", np.clip(data.cfrc_ext[1:], -1, 1), cfrc, False)
    add("clip(qfrc_constraint, -10, 10)", np.clip(data.qfrc_constraint, -10, 10), qvel_l)
    add("qfrc_actuator", data.qfrc_actuator, qvel_l)  # Humanoid's observation has these three
    add("cinert", data.cinert[1:], [f"{b}.{c}" for b in bodies for c in CINERT], False)
    add("cvel", data.cvel[1:], [f"{b}.{c}" for b in bodies for c in CVEL], False)
    return cands, np.concatenate(values)


def _flat_obs(obs) -> np.ndarray:
    """An observation as `state.obs` holds it: a dict's `observation` entry, else the array itself, flattened."""
    if isinstance(obs, dict):
        obs = obs["observation"] if "observation" in obs else np.concatenate([np.ravel(obs[k]) for k in sorted(obs)])
    return np.asarray(obs, dtype=float).ravel()


def _observation(outer, physics) -> np.ndarray:
    """`state.obs` for the state `physics` holds now, built as `outer`'s step builds it."""
    obs = physics._get_obs()
    if isinstance(obs, tuple):  # PointMaze's point env returns (obs, info)
        obs = obs[0]
    if physics is not outer:  # a maze env builds its dict observation from its inner env's
        obs = outer._get_obs(obs)
    return _flat_obs(obs)


def _random_states(env, physics, rng: np.random.Generator):
    """Yield after setting `physics` (the env's `physics_env`) to a few random states (contact forces computed too)."""
    import mujoco

    model = physics.model
    # a random command too, so that what the actuators apply (qfrc_actuator) is not all zeros: within each
    # actuator's control range, or [-1, 1] where it has none; drawn apart, so the states' draws stay those of `rng`
    limited = np.asarray(model.actuator_ctrllimited, dtype=bool)
    low = np.where(limited, model.actuator_ctrlrange[:, 0], -1.0)
    high = np.where(limited, model.actuator_ctrlrange[:, 1], 1.0)
    ctrl_rng = np.random.default_rng(1)
    for _ in range(SAMPLES):
        physics.data.ctrl[:] = ctrl_rng.uniform(low, high)
        qpos = physics.init_qpos + rng.uniform(-1.5, 1.5, model.nq)
        qvel = rng.normal(0.0, 8.0, model.nv)
        for j in range(model.njnt):
            if model.jnt_type[j] in (0, 1):  # free / ball: keep the quaternion a unit one
                a = model.jnt_qposadr[j] + (3 if model.jnt_type[j] == 0 else 0)
                qpos[a : a + 4] /= np.linalg.norm(qpos[a : a + 4])
        physics.set_state(qpos, qvel)
        mujoco.mj_rnePostConstraint(model, physics.data)
        yield _observation(env.unwrapped, physics)


def label_observation(env, schema: StateSchema, seed: int = 0) -> list[Candidate | None]:
    """For each obs element, the candidate it equals in every sampled state (None if none does; all None where the
    env has no MuJoCo state to set, see `physics_env`)."""
    physics = physics_env(env.unwrapped)
    if physics is None:
        return [None] * len(_flat_obs(env.observation_space.sample()))
    rng = np.random.default_rng(seed)
    obs_rows: list[np.ndarray] = []
    cand_rows: list[np.ndarray] = []
    cands: list[Candidate] = []
    for obs in _random_states(env, physics, rng):
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


def documented(labels: list[Candidate | None], spans: list[tuple[int, int, str]]) -> list[Candidate | None]:
    """`labels` with each (start, stop, meaning) span from the env's documentation put over what matching found."""
    out = list(labels)
    for start, stop, meaning in spans:
        for i in range(start, min(stop, len(out))):
            out[i] = Candidate(meaning, i - start, "", False)
    return out


def obs_lines(labels: list[Candidate | None]) -> list[str]:
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
            owner = names[0].rpartition(".")[0]
            if owner and names == [f"{owner}.{c}" for c in "xyz"]:  # one point's coordinates
                shown = f"{owner}.{{x, y, z}}"
            else:
                joints = "qpos" in cur.family or "qvel" in cur.family
                shown = ", ".join(names) if len(names) <= 12 else _group_names(names, joints)
            lines.append(f"- {span} = {cur.family}{idx}" + (f" ({shown})" if any(names) else ""))
        start = end
    return lines


def _group_names(names: list[str], joints: bool = False) -> str:
    """Long label lists as `owner: a, b, ...` groups (e.g. 6 contact-force entries per body); `joints`: the
    names of consecutive qpos or qvel entries, written as a span of the joint table."""
    owners: dict[str, list[str]] = {}
    if joints and not any("." in name for name in names):  # one joint per entry, in order: the table has them
        return f"{names[0]} to {names[-1]}, in joint order"
    if not all("." in name for name in names):
        return ", ".join(names)
    for name in names:
        owner, _, part = name.rpartition(".")
        owners.setdefault(owner, []).append(part)
    parts = {tuple(p) for p in owners.values()}
    if len(parts) == 1:
        return f"{'/'.join(next(iter(parts)))} for each of: {', '.join(owners)}"
    return ", ".join(names)
