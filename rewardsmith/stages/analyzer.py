"""The analyzer: what a trained candidate's policy actually did, as statistics and feedback for the designer.

Reads what the train worker wrote in the candidate folder (`metrics.jsonl`, `eval_episodes.jsonl`,
`summary.json`), tolerating missing files and corrupt lines, and writes `analysis.json`: the fitness
curve, Eureka-style reward reflection (each component at ~10 points over training), how episodes ended,
the best vs the worst evaluation episode, return/fitness alignment with a reward-hacking flag, other
flags, and `feedback`, a compact text the designer acts on. Optionally an LLM summarises likely failure
causes (Auto MC-Reward's trajectory analyzer, `prompts/analyzer.j2`).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np

from rewardsmith.errors import LLMError
from rewardsmith.files import read_jsonl, write_json_atomic
from rewardsmith.run_folder.records import (
    EPISODES_FILE,
    EVAL_DIR,
    EVALUATION_FILE,
    METRICS_FILE,
    Evaluation,
    read_record,
)
from rewardsmith.task import TaskSpec

ANALYSIS_FILE = "analysis.json"
CURVE_POINTS = 10
STATE_ROWS = 10
DOMINANCE_RATIO = 100.0
HACKING_MAX_R = -0.3  # return and fitness anti-correlated across final eval episodes
HACKING_RETURN_GAIN = 0.5  # return rose by >= 50% of its magnitude over training ...
FLAT_FITNESS_GAIN = 0.1  # ... while fitness rose by <= 10% of its magnitude (or fell)
PROGRESS_GAIN = 0.05  # no learning progress: best later fitness within 5% of the first evaluation
EARLY_TERMINATION = 0.5  # flag when at least half the final eval episodes ended by termination


def analyze(spec: TaskSpec, cand_dir: Path, *, model=None, llm_summary: bool = False) -> dict[str, Any]:
    """Analyse one trained candidate folder; write and return `analysis.json` (never raises on bad files)."""
    cand_dir = Path(cand_dir)
    metrics, problems = read_jsonl(cand_dir / METRICS_FILE)
    episodes, more = read_jsonl(cand_dir / EVAL_DIR / EPISODES_FILE)  # the evaluation worker's, never training's
    problems = [p.replace(f"{cand_dir}/", "") for p in problems + more]
    summary = _read_evaluation(cand_dir / EVAL_DIR / EVALUATION_FILE, problems)
    train = [m for m in metrics if m.get("kind") == "train" and _num(m.get("timesteps")) is not None]
    evals = [m for m in metrics if m.get("kind") == "eval" and _num(m.get("timesteps")) is not None]
    episodes = [e for e in episodes if _num(e.get("fitness")) is not None]
    if metrics and not train:
        problems.append(f"{METRICS_FILE}: no 'train' lines (no per-component data)")
    if metrics and not evals:
        problems.append(f"{METRICS_FILE}: no 'eval' lines (no fitness curve)")

    analysis: dict[str, Any] = {
        "task": spec.name,
        "final": _final(summary, episodes),
        "fitness_curve": _curve(evals, "fitness"),
        "return_curve": _curve(evals, "return"),
        "components": component_curves(train),
        "termination": termination(episodes),
        "episodes": best_vs_worst(episodes),
    }
    analysis["return_fitness_correlation"] = correlation(episodes)
    analysis["reward_hacking"] = reward_hacking(
        analysis["return_fitness_correlation"], analysis["return_curve"], analysis["fitness_curve"]
    )
    analysis["flags"] = flags(analysis)
    analysis["problems"] = problems
    analysis["feedback"] = feedback_text(analysis)
    if llm_summary and model is not None:
        _add_llm_summary(analysis, spec, model)
    write_json_atomic(cand_dir / ANALYSIS_FILE, analysis)
    return analysis


def _num(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    return float(value)


def _read_evaluation(path: Path, problems: list[str]) -> dict[str, Any]:
    """The final numbers of the evaluation worker's `evaluation.json` (the only fitness that decides anything);
    the learning curves and components come from `metrics.jsonl`, reported by the training worker."""
    evaluation = read_record(path, Evaluation)
    if evaluation is None:
        problems.append(f"{EVAL_DIR}/{EVALUATION_FILE}: missing or unreadable")
        return {}
    return {
        "fitness": evaluation.fitness_mean,
        "success_rate": evaluation.success_rate,
        "ep_len": float(np.mean(evaluation.lengths)) if evaluation.lengths else None,
    }


def _final(summary: dict[str, Any], episodes: list[dict]) -> dict[str, float | None]:
    """Final evaluation numbers: from the evaluation worker's evaluation.json, else recomputed from its
    eval_episodes.jsonl ("return" only where an episode carries one: the evaluation worker runs no reward)."""
    keys = ("fitness", "success_rate", "ep_len", "return")
    final = {k: _num(summary.get(k)) for k in keys}
    if episodes:
        recomputed = {
            "fitness": [e.get("fitness") for e in episodes],
            "success_rate": [e.get("success") for e in episodes],
            "ep_len": [e.get("length") for e in episodes],
            "return": [e.get("return") for e in episodes],
        }
        for key, values in recomputed.items():
            numbers = [float(v) for v in values if _num(v) is not None or isinstance(v, bool)]
            if final[key] is None and numbers:
                final[key] = float(np.mean(numbers))
    return final


def _curve(lines: list[dict], key: str) -> list[tuple[int, float]]:
    return [(int(m["timesteps"]), _num(m.get(key))) for m in lines if _num(m.get(key)) is not None]


def _spaced(n: int, k: int = CURVE_POINTS) -> list[int]:
    return sorted({int(round(i)) for i in np.linspace(0, n - 1, min(n, k))}) if n else []


def component_curves(train: list[dict]) -> dict[str, dict[str, Any]]:
    """Per component: ~10 evenly spaced (timesteps, value) points over training, and min/mean/max/std."""
    series: dict[str, list[tuple[int, float]]] = {}
    for line in train:
        parts = line.get("components")
        for name, value in parts.items() if isinstance(parts, dict) else ():
            if _num(value) is not None:
                series.setdefault(str(name), []).append((int(line["timesteps"]), float(value)))
    curves = {}
    for name, points in series.items():
        values = np.array([v for _, v in points])
        curves[name] = {
            "points": [points[i] for i in _spaced(len(points))],
            "min": float(values.min()),
            "mean": float(values.mean()),
            "max": float(values.max()),
            "std": float(values.std()),
            "mean_abs": float(np.abs(values).mean()),
        }
    return curves


def termination(episodes: list[dict]) -> dict[str, Any]:
    """How the final evaluation episodes ended: terminated vs truncated counts and the mean length."""
    ended = [e.get("termination") for e in episodes]
    lengths = [float(e["length"]) for e in episodes if _num(e.get("length")) is not None]
    n = len(episodes)
    return {
        "episodes": n,
        "terminated": ended.count("terminated"),
        "truncated": ended.count("truncated"),
        "terminated_fraction": ended.count("terminated") / n if n else None,
        "mean_length": float(np.mean(lengths)) if lengths else None,
    }


def best_vs_worst(episodes: list[dict]) -> dict[str, Any]:
    """The best and worst final eval episodes by fitness, and their key state statistics side by side."""
    if not episodes:
        return {}
    best = max(episodes, key=lambda e: e["fitness"])
    worst = min(episodes, key=lambda e: e["fitness"])

    def head(e: dict) -> dict[str, Any]:
        return {k: e.get(k) for k in ("episode", "fitness", "success", "return", "length", "termination")}

    stats_b, stats_w = best.get("state_stats"), worst.get("state_stats")
    rows: dict[str, dict[str, Any]] = {}
    if isinstance(stats_b, dict) and isinstance(stats_w, dict):
        shared = [n for n in stats_b if n in stats_w and isinstance(stats_b[n], dict) and isinstance(stats_w[n], dict)]

        def gap(name: str) -> float:
            b, w = _num(stats_b[name].get("mean")), _num(stats_w[name].get("mean"))
            return abs(b - w) if b is not None and w is not None else 0.0

        roots = [n for n in shared if not n.endswith(".qpos")][:3]  # the root body's x, y, z first
        joints = sorted((n for n in shared if n not in roots), key=gap, reverse=True)
        rows = {n: {"best": stats_b[n], "worst": stats_w[n]} for n in (roots + joints)[:STATE_ROWS]}
    return {"best": head(best), "worst": head(worst), "state": rows}


def correlation(episodes: list[dict]) -> dict[str, Any]:
    """Pearson r of return and fitness across final eval episodes (None under 3 episodes or zero variance)."""
    pairs = [(_num(e.get("return")), e["fitness"]) for e in episodes if _num(e.get("return")) is not None]
    r = None
    if len(pairs) >= 3:
        returns, fitness = np.array(pairs).T
        if returns.std() > 1e-12 and fitness.std() > 1e-12:
            r = float(np.corrcoef(returns, fitness)[0, 1])
    return {"r": r, "episodes": len(pairs)}


def _gain(curve: list[tuple[int, float]]) -> tuple[float, float] | None:
    """(last - first, relative to the larger magnitude) of a curve with at least 2 points."""
    if len(curve) < 2:
        return None
    first, last = curve[0][1], curve[-1][1]
    return last - first, (last - first) / max(abs(first), abs(last), 1e-8)


def reward_hacking(
    corr: dict[str, Any], returns: list[tuple[int, float]], fitness: list[tuple[int, float]]
) -> dict[str, Any]:
    """Flag when the reward and the task disagree.

    Rule: r < -0.3 across the final eval episodes, OR over training the return rose by >= 50% of its
    magnitude (first vs last evaluation) while fitness rose by <= 10% of its magnitude or fell.
    """
    reasons = []
    if corr["r"] is not None and corr["r"] < HACKING_MAX_R:
        reasons.append(
            f"across the {corr['episodes']} final eval episodes, a higher return came with a lower fitness "
            f"(r = {corr['r']:.2f} < {HACKING_MAX_R})"
        )
    ret, fit = _gain(returns), _gain(fitness)
    if ret and fit and ret[1] >= HACKING_RETURN_GAIN and fit[1] <= FLAT_FITNESS_GAIN:
        reasons.append(
            f"over training the return rose from {_g(returns[0][1])} to {_g(returns[-1][1])} while fitness "
            f"went from {_g(fitness[0][1])} to {_g(fitness[-1][1])}"
        )
    text = (
        (
            "possible reward hacking: " + "; ".join(reasons) + ". The policy maximises the reward without doing the "
            "task: remove or cap the terms it exploits and reward the task outcome directly"
        )
        if reasons
        else ""
    )
    return {"flag": bool(reasons), "reason": text}


def flags(analysis: dict[str, Any]) -> list[dict[str, str]]:
    """Warnings: constant or dominant components, reward hacking, no learning progress, early terminations."""
    found = []
    comps = analysis["components"]
    for name, c in comps.items():
        if len(c["points"]) >= 2 and c["std"] <= 1e-9 + 1e-6 * abs(c["mean"]):
            found.append(
                {
                    "code": "constant-component",
                    "message": f"component {name} stayed at {_g(c['mean'])} "
                    "all through training: it gives no learning signal",
                }
            )
        others = [o["mean_abs"] for other, o in comps.items() if other != name]
        if others and max(others) > 0 and c["mean_abs"] > DOMINANCE_RATIO * max(others):
            found.append(
                {
                    "code": "dominant-component",
                    "message": f"component {name} (mean |value| {_g(c['mean_abs'])}) "
                    f"is over {DOMINANCE_RATIO:g}x every other component: the others barely matter",
                }
            )
    if analysis["reward_hacking"]["flag"]:
        found.append({"code": "reward-hacking", "message": analysis["reward_hacking"]["reason"]})
    curve = analysis["fitness_curve"]
    if len(curve) >= 2:
        first, best_later = curve[0][1], max(v for _, v in curve[1:])
        if best_later - first <= PROGRESS_GAIN * max(abs(first), abs(best_later), 1e-8):
            found.append(
                {
                    "code": "no-progress",
                    "message": f"fitness never rose above its first evaluation "
                    f"({_g(first)}; best later {_g(best_later)}): the reward does not lead towards the task",
                }
            )
    term = analysis["termination"]
    if term["terminated_fraction"] is not None and term["terminated_fraction"] >= EARLY_TERMINATION:
        found.append(
            {
                "code": "early-termination",
                "message": f"{term['terminated']} of {term['episodes']} final eval "
                f"episodes ended by termination (mean length {_steps(term['mean_length'])} steps): the policy "
                "falls or leaves the healthy range; reward staying healthy or penalise what ends episodes",
            }
        )
    return found


def _g(value: float | None) -> str:
    return "-" if value is None else f"{value:.3g}"


def _steps(value: float | None) -> str:
    return "-" if value is None else f"{value:.0f}"


def feedback_text(analysis: dict[str, Any]) -> str:
    """Compact plain text (<= ~60 lines) for the designer: curves, components, episodes, warnings."""
    lines = []
    final = analysis["final"]
    lines.append(
        f"final evaluation: fitness {_g(final['fitness'])}, success rate {_g(final['success_rate'])}, "
        f"episode length {_steps(final['ep_len'])}, return of your reward {_g(final['return'])}"
    )
    for label, key in (("fitness (trusted task score)", "fitness_curve"), ("return (your reward)", "return_curve")):
        curve = analysis[key]
        if curve:
            points = [curve[i] for i in _spaced(len(curve))]
            lines.append(f"{label} during training: " + ", ".join(f"{_g(v)} @ {t}" for t, v in points))
    comps = analysis["components"]
    if comps:
        lines.append("reward components (episode sums at evenly spaced points over training):")
        for name, c in list(comps.items())[:20]:
            values = ", ".join(_g(v) for _, v in c["points"])
            lines.append(f"  {name}: [{values}]  min {_g(c['min'])} mean {_g(c['mean'])} max {_g(c['max'])}")
    term = analysis["termination"]
    if term["episodes"]:
        lines.append(
            f"final eval episodes: {term['terminated']} of {term['episodes']} "
            f"({100 * term['terminated_fraction']:.0f}%) ended by termination, {term['truncated']} by the "
            f"time limit; mean length {_steps(term['mean_length'])} steps"
        )
    ep = analysis["episodes"]
    if ep:
        b, w = ep["best"], ep["worst"]
        lines.append(
            f"best vs worst eval episode: fitness {_g(_num(b['fitness']))} vs {_g(_num(w['fitness']))}, "
            f"return {_g(_num(b['return']))} vs {_g(_num(w['return']))}, length {b['length']} vs {w['length']}"
        )
        for name, row in ep["state"].items():
            bs, ws = row["best"], row["worst"]
            lines.append(
                f"  {name}: mean {_g(_num(bs.get('mean')))} vs {_g(_num(ws.get('mean')))}, "
                f"range [{_g(_num(bs.get('min')))}, {_g(_num(bs.get('max')))}] vs "
                f"[{_g(_num(ws.get('min')))}, {_g(_num(ws.get('max')))}], "
                f"last {_g(_num(bs.get('last')))} vs {_g(_num(ws.get('last')))}"
            )
    corr = analysis["return_fitness_correlation"]
    if corr["r"] is not None:
        lines.append(f"return vs fitness across {corr['episodes']} eval episodes: r = {corr['r']:.2f}")
    if analysis["flags"]:
        lines.append("warnings:")
        lines += [f"- {f['message']}" for f in analysis["flags"]]
    if analysis["problems"]:
        lines.append("missing data: " + "; ".join(analysis["problems"][:5]))
    return "\n".join(lines[:60])


def _add_llm_summary(analysis: dict[str, Any], spec: TaskSpec, model) -> None:
    """Ask the model for likely failure causes and fixes; append to feedback, record tokens and cost."""
    from rewardsmith.stages.prompts import render

    prompt = render("analyzer.j2", task=spec.description.strip(), feedback=analysis["feedback"])
    try:
        response = model.complete(
            [{"role": "user", "content": prompt}], role="analyzer", temperature=0.2, max_tokens=800
        )
    except LLMError as e:
        analysis["problems"].append(f"LLM summary unavailable: {e}")
        return
    text = response.text.strip()
    analysis["llm_summary"] = text
    analysis["llm"] = {
        "model": model.name,
        "tokens": response.prompt_tokens + response.completion_tokens,
        "cost_usd": response.cost_usd,
    }
    analysis["feedback"] += "\nanalysis of likely causes:\n" + text
