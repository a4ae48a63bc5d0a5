"""What the analyzer's numbers mean, judged from the trusted side: reward-hacking evidence, named episode
ends and compact step traces of evaluation episodes.

Fitness, states and episode ends come from data the candidate's code never touched: what the evaluation
worker recorded (`eval_episodes.jsonl`, `trajectories.npz`) and the env's own termination rule. The reward's
own numbers (its return and components on those episodes) are computed by a sandboxed replay worker
(`workers.replay`) and shown as the reward's, never used for a decision. A warning fires only when the
evidence holds up, and says which statistic over how many episodes supports it.
"""

from __future__ import annotations

import math
import re
from typing import Any

import numpy as np

from rewardsmith.errors import RewardsmithError
from rewardsmith.stats import spearman
from rewardsmith.task import TaskSpec, make_env, make_scorer

HACKING_MIN_EPISODES = 10
"""Fewest (return, fitness) episode pairs behind a reward-hacking warning."""
HACKING_MIN_SPREAD = 0.02
"""Least fitness range (max - min, in fitness units) across those episodes: below it fitness is noise."""
HACKING_MAX_RHO = -0.3
"""Spearman's rho of return vs fitness at or below this ..."""
HACKING_MAX_Z = -1.645
"""... and rho * sqrt(n - 1) at or below this (one-sided 5% under no association)."""
HACKING_RETURN_GAIN = 0.5  # over training the return rose by >= 50% of its magnitude ...
FLAT_FITNESS_GAIN = 0.1  # ... while fitness rose by <= 10% of its magnitude (or fell), with enough spread
TRACE_ROWS = 10
TRACE_COLUMNS = 8
TRACE_COMPONENTS = 6
"""Most reward-component columns in a step trace (after the state's columns)."""


TINY = 1e-6
SAME_FITNESS = 0.05
"""Best and worst episodes this close (relative) get one step trace, not two."""


def _g(value: float | None) -> str:
    """3 significant digits; |value| < 1e-6 as 0 (float noise, not a signal); "-" for None."""
    return "-" if value is None else "0" if abs(value) < TINY else f"{value:.3g}"


def of_candidates(episodes: int, candidates: int) -> str:
    """ "24 evaluation episodes of 6 candidates", or "... of this candidate" when only its own were used."""
    whose = "this candidate" if candidates <= 1 else f"{candidates} candidates"
    return f"{episodes} evaluation episode{'s' if episodes != 1 else ''} of {whose}"


def hacking_evidence(
    pairs: list[tuple[float, float]],
    returns: list[tuple[int, float]],
    fitness: list[tuple[int, float]],
    source: str = "",
    candidates: int = 1,
) -> dict[str, Any]:
    """Judge reward hacking from (return, fitness) pairs of the run's evaluation episodes and the curves.

    `pairs` come from `candidates` candidates' evaluation episodes (the candidate's reward replayed on each);
    fires when (a) over >= HACKING_MIN_EPISODES episodes whose fitness spans >= HACKING_MIN_SPREAD, Spearman's
    rho <= HACKING_MAX_RHO with rho*sqrt(n-1) <= HACKING_MAX_Z, or (b) over >= 3 evaluations the return rose by
    >= 50% while fitness rose by <= 10%, and the evaluations' fitness spans >= HACKING_MIN_SPREAD.
    Returns the flag, the reason (with statistic, n and the number of candidates, and `source`: where the
    pairs' returns come from) and the numbers, including why it did not fire.
    """
    n = len(pairs)
    out: dict[str, Any] = {"flag": False, "reason": "", "episodes": n, "rho": None, "fitness_spread": None}
    reasons, held_back = [], []
    if n:
        r, f = np.array(pairs, dtype=float).T
        out["fitness_spread"] = spread = float(np.ptp(f))
        rho = spearman(r, f)
        out["rho"] = rho
        over = of_candidates(n, candidates)
        if n < HACKING_MIN_EPISODES:
            held_back.append(f"only {over} (need {HACKING_MIN_EPISODES})")
        elif spread < HACKING_MIN_SPREAD:
            held_back.append(f"fitness spans only {_g(spread)} across {over} (need {HACKING_MIN_SPREAD:g})")
        elif rho is not None and rho <= HACKING_MAX_RHO and rho * math.sqrt(n - 1) <= HACKING_MAX_Z:
            reasons.append(
                f"across {over} (fitness from {_g(float(f.min()))} to {_g(float(f.max()))}"
                f"{'; ' + source if source else ''}), "
                f"episodes with a higher return had a lower fitness (Spearman rho = {rho:.2f})"
            )
    if len(returns) >= 3 and len(fitness) >= 3:
        r0, r1 = returns[0][1], returns[-1][1]
        f0, f1 = fitness[0][1], fitness[-1][1]
        f_spread = max(v for _, v in fitness) - min(v for _, v in fitness)
        rose = (r1 - r0) / max(abs(r0), abs(r1), 1e-8) >= HACKING_RETURN_GAIN
        flat = (f1 - f0) / max(abs(f0), abs(f1), 1e-8) <= FLAT_FITNESS_GAIN
        if rose and flat and (f_spread >= HACKING_MIN_SPREAD or abs(f1 - f0) < HACKING_MIN_SPREAD):
            reasons.append(
                f"over {len(returns)} evaluations during training the return rose from {_g(r0)} to {_g(r1)} "
                f"while fitness went from {_g(f0)} to {_g(f1)}"
            )
    if reasons:
        out["flag"] = True
        out["reason"] = (
            "possible reward hacking: " + "; ".join(reasons) + ". The policy earns more reward without doing "
            "more of the task: find the term that pays for the wrong behaviour and cap or remove it"
        )
    out["held_back"] = held_back
    return out


EVALUATION_PAIRS = "returns computed by your reward on the recorded evaluation episodes"
TRAINING_PAIRS = "returns as reported by the training worker"


def evaluation_pairs(
    returns: list[float], recorded: list, summary: dict[str, Any], episodes: list[dict[str, Any]]
) -> list[tuple[float, float]]:
    """(replayed return, trusted fitness) per recorded evaluation episode. Fitness comes from the evaluation
    worker's evaluation.json, else its eval_episodes.jsonl, else the archive's label; an episode the archive
    cut short (`MAX_STEPS`) is left out, since its replayed return covers only part of it."""
    from rewardsmith.workers.trajectories import MAX_STEPS

    fitness, lengths = summary.get("episode_fitness") or [], summary.get("episode_lengths") or []
    by_index = {e.get("episode", k): e for k, e in enumerate(episodes)}
    pairs = []
    for i, (value, episode) in enumerate(zip(returns, recorded)):
        if len(fitness) == len(recorded):
            score = fitness[i]
        elif isinstance(by_index.get(i), dict):
            score = by_index[i]["fitness"]
        else:
            score = episode.fitness
        length = lengths[i] if len(lengths) == len(recorded) else (by_index.get(i) or {}).get("length")
        cut = episode.steps >= MAX_STEPS and isinstance(length, int) and length > episode.steps
        if not cut and isinstance(score, (int, float)) and math.isfinite(score):
            pairs.append((float(value), float(score)))
    return pairs


def return_fitness_pairs(evals: list[dict], episodes: list[dict]) -> list[tuple[float, float]]:
    """The fallback when the replay failed: (return, fitness) pairs the training worker reported for its
    learning-curve evaluations, plus final episodes that carry a return."""

    def number(v: Any) -> bool:
        return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)

    pairs: list[tuple[float, float]] = []
    for line in evals:
        for pair in line.get("pairs") or []:
            if isinstance(pair, list) and len(pair) == 2 and all(number(v) for v in pair):
                pairs.append((float(pair[0]), float(pair[1])))
    for e in episodes:
        if number(e.get("return")) and number(e.get("fitness")):
            pairs.append((float(e["return"]), float(e["fitness"])))
    return pairs


# -- named episode ends -----------------------------------------------------------------------------------


_CHECKS: dict[str, tuple[list[tuple[str, str, float, float]], str]] = {}
_DT: dict[str, float | None] = {}


def _checks(spec: TaskSpec) -> tuple[list[tuple[str, str, float, float]], str]:
    """The env's early-termination checks as (what, state_stats row, low, high), and a fallback phrase."""
    key = spec.model_dump_json()
    if key not in _CHECKS:
        _CHECKS[key] = _read_checks(spec)
    return _CHECKS[key]


def _read_checks(spec: TaskSpec) -> tuple[list[tuple[str, str, float, float]], str]:
    try:
        env = make_env(spec)
    except RewardsmithError:
        return [], "terminated"
    try:
        env.reset(seed=0)
        base, model = env.unwrapped, getattr(env.unwrapped, "model", None)
        cls = type(base).__name__
        if cls == "InvertedDoublePendulumEnv":
            return [], "terminated: the pole's tip (site `tip`) dropped to 1.0 m or below"
        if cls == "InvertedPendulumEnv":
            return [], "terminated: the pole angle left [-0.2, 0.2] rad"
        z, angle = getattr(base, "_healthy_z_range", None), getattr(base, "_healthy_angle_range", None)
        if model is None or z is None:
            return [], "terminated (the env's own termination condition fired)"
        import mujoco

        joint = lambda j: mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_JOINT, j) or f"joint {j}"  # noqa: E731
        if model.jnt_type[0] == 0:  # free root: height is the root body's z
            body = mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_BODY, 1)
            checks = [(f"height of `{body}`", f"{body}.z", *z)]
        else:
            checks = [(f"height `{joint(1)}`", f"{joint(1)}.qpos", *z)]
            if angle is not None:
                checks.append((f"pitch `{joint(2)}`", f"{joint(2)}.qpos", *angle))
        state = getattr(base, "_healthy_state_range", None)
        rest = f" (a qpos/qvel entry left {list(state)})" if state is not None else ""
        return [(w, row, float(lo), float(hi)) for w, row, lo, hi in checks], f"terminated{rest}"
    finally:
        env.close()


def end_reason(spec: TaskSpec, episode: dict[str, Any]) -> str:
    """Why an evaluation episode ended: the time limit, or the termination check its last state fails."""
    how = episode.get("termination") or episode.get("end")
    if how in ("truncated", "time limit"):
        return f"time limit ({episode.get('length', '?')} steps)"
    if how not in ("terminated",):
        return str(how or "unknown")
    checks, fallback = _checks(spec)
    raw = episode.get("state_stats")
    stats: dict[str, Any] = raw if isinstance(raw, dict) else {}
    for what, row, lo, hi in checks:
        last = (stats.get(row) or {}).get("last") if isinstance(stats.get(row), dict) else None
        if isinstance(last, (int, float)) and not lo <= last <= hi:
            return f"terminated at step {episode.get('length', '?')}: {what} = {_g(last)} left [{_g(lo)}, {_g(hi)}]"
    return f"{fallback} at step {episode.get('length', '?')}"


# -- step traces -------------------------------------------------------------------------------------------

_NAMED = re.compile(r"""\.(body|joint|site)\(\s*["']([A-Za-z0-9_]+)["']\s*\)""")


def read_names(spec: TaskSpec, code: str) -> dict[str, list[str]]:
    """Bodies, joints and sites the reward code and the scorer read, in first-use order."""
    found: dict[str, list[str]] = {"body": [], "joint": [], "site": []}
    for kind, name in _NAMED.findall(code or ""):
        if name not in found[kind]:
            found[kind].append(name)
    try:
        scorer = make_scorer(spec)
    except RewardsmithError:
        scorer = None
    for attr, kind in (("body", "body"), ("point", "body"), ("target", "body"), ("pitch_joint", "joint")):
        value = getattr(scorer, attr, None)
        if isinstance(value, str) and value not in found[kind]:
            found[kind].append(value)
    for foot in getattr(scorer, "feet", None) or []:
        if foot not in found["body"]:
            found["body"].append(foot)
    site = getattr(scorer, "site", None)
    if isinstance(site, str) and site not in found["site"]:
        found["site"].append(site)
    return found


def trace_steps(episode) -> list[int]:
    """The ~TRACE_ROWS evenly spaced state indices a step trace of `episode` shows (0 and the last included)."""
    return [int(t) for t in np.unique(np.linspace(0, episode.steps, min(TRACE_ROWS, episode.steps + 1)).round())]


def step_trace(
    spec: TaskSpec,
    episode,
    dt: float,
    names: dict[str, list[str]],
    max_chars: int = 1600,
    components: dict[int, dict[str, float]] | None = None,
) -> list[str]:
    """About TRACE_ROWS evenly spaced steps of one recorded episode, with the named quantities that change and,
    given `components` ({state index: {name: value}} of the step into that state), the reward's components.

    `episode` is a `workers.trajectories.Episode` recorded by the evaluation worker; bodies and sites are
    recomputed from its qpos through the task's own model. Rows and columns shrink to fit `max_chars`.
    """
    from rewardsmith.reward.state import State, schema_for

    env = make_env(spec)
    try:
        env.reset(seed=0)
        schema = schema_for(env)
        if schema is None:
            return []
        steps = trace_steps(episode)
        columns: dict[str, list[float]] = {}
        for t in steps:
            state = State.from_arrays(episode.obs[t], episode.qpos[t], episode.qvel[t], dt, schema, time=t * dt)
            values: dict[str, float] = {}
            for body in names["body"]:
                if body in schema.body_names:
                    pos = state.body(body).pos
                    values.update({f"{body}.{a}": float(pos[i]) for i, a in enumerate("xyz")})
            for joint in names["joint"]:
                if joint in schema.joints and schema.joints[joint].kind in ("hinge", "slide"):
                    values[f"{joint}.qpos"] = float(state.joint(joint).qpos)
            for site in names["site"]:
                if site in schema.site_names:
                    values[f"{site}.z"] = float(state.site(site).pos[2])
            for key, value in values.items():
                columns.setdefault(key, []).append(value)
    finally:
        env.close()
    moving = {k: v for k, v in columns.items() if np.ptp(v) > 1e-4}
    unique: dict[str, list[float]] = {}
    for key, column in moving.items():  # one name per quantity: drop a column that repeats another
        if not any(np.allclose(column, other, atol=1e-4) for other in unique.values()):
            unique[key] = column
    keys = list(unique)[:TRACE_COLUMNS]
    parts = components or {}
    reward_keys = list(dict.fromkeys(name for t in steps for name in parts.get(t, {})))[:TRACE_COMPONENTS]
    rows = [" | ".join(["step", *keys, *reward_keys])]
    for i, t in enumerate(steps):
        cells = [_g(unique[k][i]) for k in keys] + [_g(parts.get(t, {}).get(name)) for name in reward_keys]
        rows.append(" | ".join([str(t), *cells]))
    while len("\n".join(rows)) > max_chars and len(rows) > 4:
        rows = rows[:1] + rows[1:-1:2] + rows[-1:]  # keep the header, every other step and the last step
    return rows


def trace_budget(model: Any) -> int:
    """Characters per step trace: small for the built-in 4k-context model, larger for API models."""
    return 600 if getattr(model, "kind", None) == "local" else 1600


def trace_picks(recorded: list, episodes: list[dict[str, Any]]) -> list[tuple[str, int]]:
    """(label, index) of the recorded episodes a step trace shows: the best and the worst by fitness; the best
    alone when the two differ by at most `SAME_FITNESS` of the best's magnitude (two near-identical traces)."""
    order = sorted(range(min(len(recorded), len(episodes))), key=lambda i: recorded[i].fitness)
    if not order:
        return []
    best, worst = recorded[order[-1]].fitness, recorded[order[0]].fitness
    if len(order) > 1 and abs(best - worst) <= SAME_FITNESS * max(abs(best), abs(worst)):
        return [("best (the worst episode scored within 5% of it)", order[-1])]
    return [("best", order[-1]), ("worst", order[0])] if len(order) > 1 else [("only", order[0])]


def trace_lines(
    spec: TaskSpec,
    recorded: list,
    episodes: list[dict[str, Any]],
    code: str,
    max_chars: int,
    components: dict[int, dict[int, dict[str, float]]] | None = None,
) -> list[str]:
    """Step traces of the best and the worst recorded evaluation episode (by fitness), each ended by its end
    reason. `components`: {episode index: {state index: {name: value}}}, the candidate's reward replayed on
    the recorded episode in a sandboxed worker (`workers.replay`); its columns follow the state's."""
    dt = _dt(spec)
    picks = trace_picks(recorded, episodes)
    if not picks or dt is None:
        return []
    names = read_names(spec, code)
    lines = []
    if components and any(components.get(i) for _, i in picks):
        lines.append(
            "step traces: state quantities, then your reward's components at that step (computed by the reward "
            "on the recorded episode; each is the reward for the step into that state, so step 0 has none):"
        )
    for label, i in picks:
        lines.append(
            f"{label} evaluation episode (fitness {_g(recorded[i].fitness)}), every ~{max(1, recorded[i].steps // 9)} steps:"
        )
        lines += ["  " + row for row in step_trace(spec, recorded[i], dt, names, max_chars, (components or {}).get(i))]
        lines.append(f"  ended: {end_reason(spec, episodes[i])}")
    return lines


def _dt(spec: TaskSpec) -> float | None:
    """The env's control step (s), looked up once per spec."""
    key = spec.model_dump_json()
    if key not in _DT:
        try:
            env = make_env(spec)
        except RewardsmithError:
            return None
        try:
            _DT[key] = getattr(env.unwrapped, "dt", None)
        finally:
            env.close()
    return _DT[key]
