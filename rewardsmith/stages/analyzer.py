"""The analyzer: what a trained candidate's policy actually did, as statistics and feedback for the designer.

Reads the evaluation worker's `eval/evaluation.json` and `eval/eval_episodes.jsonl` (the final numbers) and
the training worker's `metrics.jsonl` (curves and components, as reported by it), tolerating missing files and
corrupt lines, and writes `analysis.json`: the fitness,
return and episode-length curves, Eureka-style reward reflection (each component at ~10 points over
training, as episode sums and per-step means), each evaluation episode's end named from the env's own
termination rule, the best vs the worst evaluation episode (side by side and as step traces),
return/fitness alignment with a reward-hacking flag that fires only on enough evidence
(`stages.reflection`), other flags, and `feedback`, a compact text the designer acts on.
The candidate's reward is replayed over its recorded evaluation episodes and those of the run's other
trained candidates in a sandboxed `replay` worker (`stages.run_replay`, ~1-2 s): its components fill extra
columns of the candidate's own step traces, and its return on each episode is paired with that episode's
trusted fitness for the hacking check, which says over how many episodes of how many candidates it judged
(`analysis["replay"]` records the outcome; when the replay fails, the training worker's own reports are used,
and the feedback says so). Optionally an
LLM, shown the reward code, the environment description and the task, summarises likely failure causes
(Auto MC-Reward's trajectory analyzer, `prompts/analyzer.j2`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from rewardsmith.errors import LLMError
from rewardsmith.files import clean_components, read_jsonl, write_json_atomic
from rewardsmith.llm import Model
from rewardsmith.run_folder.candidate import CandidateFolder, candidate_at
from rewardsmith.run_folder.names import (
    ANALYSIS_FILE,
    EPISODES_FILE,
    EVAL_DIR,
    EVALUATION_FILE,
    METRICS_FILE,
    REWARD_FILE,
)
from rewardsmith.run_folder.records import Evaluation, read_record
from rewardsmith.stages.feedback import feedback_text, finite, g, spaced, steps_text
from rewardsmith.stages.reflection import (
    end_reason,
    hacking_evidence,
    return_fitness_pairs,
    trace_budget,
    trace_lines,
)
from rewardsmith.stages.run_replay import recorded_episodes, replay_evaluation
from rewardsmith.stages.visual_feedback import image_parts, record_frames, with_images
from rewardsmith.stats import is_constant
from rewardsmith.task import TaskSpec
from rewardsmith.workers.executor import Executor

MAX_EPISODES_BYTES = 16 * 2**20
STATE_ROWS = 10
DOMINANCE_RATIO = 100.0
PROGRESS_GAIN = 0.05  # no learning progress: best later fitness within 5% of the first evaluation
EARLY_TERMINATION = 0.5  # flag when at least half the final eval episodes ended by termination


def analyze(
    spec: TaskSpec,
    cand_dir: Path,
    *,
    model: Model | None,
    executor: Executor,
    env_description: str | None,
    llm_summary: bool = False,
    visual: bool = False,
) -> dict[str, Any]:
    """Analyse one trained candidate folder; write and return `analysis.json` (never raises on bad files).

    The reward's replay runs through `executor`; `model` sizes the step traces and, with `llm_summary`, writes
    the summary from the run's `env_description` (`model=None` or `env_description=None`: no summary).
    `visual`: also render frames of the best and worst evaluation episodes (`stages.visual_feedback`), which the
    summary's request then carries as images."""
    cand_dir = Path(cand_dir)
    cand = candidate_at(cand_dir)
    metrics, problems = read_jsonl(cand_dir / METRICS_FILE)
    episodes, more = read_jsonl(cand_dir / EVAL_DIR / EPISODES_FILE)  # the evaluation worker's, never training's
    problems = [p.replace(f"{cand_dir}/", "") for p in problems + more]
    if cand is not None and cand.verified(cand.episodes_path, MAX_EPISODES_BYTES) is None:
        episodes = []  # in a run: only the episodes the parent accepted with the evaluation
    summary = _read_evaluation(cand_dir / EVAL_DIR / EVALUATION_FILE, problems, cand)
    train = [m for m in metrics if m.get("kind") == "train" and finite(m.get("timesteps")) is not None]
    evals = [m for m in metrics if m.get("kind") == "eval" and finite(m.get("timesteps")) is not None]
    episodes = [e for e in episodes if finite(e.get("fitness")) is not None]
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
        "length_curve": _curve(evals, "ep_len"),
        "termination": termination(episodes),
        "ends": [end_reason(spec, e) for e in episodes],
        "episodes": best_vs_worst(episodes),
    }
    code = _read_code(cand_dir)
    path, recorded, analysis["traces"] = recorded_episodes(cand_dir)
    components, pairs = replay_evaluation(spec, cand_dir, path, recorded, episodes, summary, analysis, executor)
    if recorded:
        analysis["traces"] = trace_lines(spec, recorded, episodes, code, trace_budget(model), components)
    candidates = len(analysis["replay"]["candidates"])
    if pairs is None:  # the replay failed: fall back to the training worker's own (return, fitness) reports
        pairs, candidates = return_fitness_pairs(evals, episodes), 1
    source = analysis["replay"]["pairs"]
    hacking = hacking_evidence(pairs, analysis["return_curve"], analysis["fitness_curve"], source, candidates)
    analysis["return_fitness_correlation"] = {
        "statistic": "spearman",
        "rho": hacking["rho"],
        "episodes": hacking["episodes"],
        "candidates": candidates,
        "fitness_spread": hacking["fitness_spread"],
        "returns": source,
    }
    analysis["reward_hacking"] = {
        "flag": hacking["flag"],
        "reason": hacking["reason"],
        "held_back": hacking["held_back"],
    }
    analysis["flags"] = flags(analysis)
    analysis["problems"] = problems
    analysis["feedback"] = feedback_text(analysis)
    if visual and analysis["episodes"]:
        analysis["frames"] = record_frames(spec, cand_dir, analysis["episodes"], executor=executor)
        if "problem" in analysis["frames"]:
            problems.append(f"visual feedback: no frames: {analysis['frames']['problem']}")
    if llm_summary and model is not None and env_description is not None:
        images = image_parts(cand_dir, analysis.get("frames"))
        _add_llm_summary(analysis, spec, model, code, env_description, images)
    if cand is not None:
        cand.save_analysis(analysis)  # signed: only this analysis is ever shown or prompted
    else:
        write_json_atomic(cand_dir / ANALYSIS_FILE, analysis)
    return analysis


def _read_code(cand_dir: Path) -> str:
    """The candidate's reward code (shown to the analyzer LLM and read for the step traces' columns)."""
    try:
        return (cand_dir / REWARD_FILE).read_text(encoding="utf-8")[:20000]
    except (OSError, UnicodeDecodeError):
        return ""


def _read_evaluation(path: Path, problems: list[str], cand: CandidateFolder | None = None) -> dict[str, Any]:
    """The final numbers of the evaluation worker's `evaluation.json` (the only fitness that decides anything;
    in a run's candidate folder only as the parent accepted it); the learning curves and components come from
    `metrics.jsonl`, reported by the training worker."""
    evaluation = cand.evaluation() if cand is not None else read_record(path, Evaluation)
    if evaluation is None:
        problems.append(f"{EVAL_DIR}/{EVALUATION_FILE}: missing or unreadable")
        return {}
    return {
        "fitness": evaluation.fitness_mean,
        "success_rate": evaluation.success_rate,
        "ep_len": float(np.mean(evaluation.lengths)) if evaluation.lengths else None,
        "episode_fitness": list(evaluation.fitness),
        "episode_lengths": list(evaluation.lengths),
    }


def _final(summary: dict[str, Any], episodes: list[dict]) -> dict[str, float | None]:
    """Final evaluation numbers: from the evaluation worker's evaluation.json, else recomputed from its
    eval_episodes.jsonl ("return" only where an episode carries one: the evaluation worker runs no reward)."""
    keys = ("fitness", "success_rate", "ep_len", "return")
    final = {k: finite(summary.get(k)) for k in keys}
    if episodes:
        recomputed = {
            "fitness": [e.get("fitness") for e in episodes],
            "success_rate": [e.get("success") for e in episodes],
            "ep_len": [e.get("length") for e in episodes],
            "return": [e.get("return") for e in episodes],
        }
        for key, values in recomputed.items():
            numbers = [float(v) for v in values if v is not None and (finite(v) is not None or isinstance(v, bool))]
            if final[key] is None and numbers:
                final[key] = float(np.mean(numbers))
    return final


def _curve(lines: list[dict], key: str) -> list[tuple[int, float]]:
    """(timesteps, value) per line; a repeated timesteps keeps its last value (no repeated points)."""
    points = {int(m["timesteps"]): float(m[key]) for m in lines if finite(m.get(key)) is not None}
    return sorted(points.items())


def component_curves(train: list[dict]) -> dict[str, dict[str, Any]]:
    """Per component: ~10 evenly spaced (timesteps, value) points over training, and min/mean/max/std."""
    series: dict[str, list[tuple[int, float]]] = {}
    per_step: dict[str, list[float]] = {}
    for line in train:
        length = finite(line.get("ep_len"))
        for name, value in clean_components(line.get("components")).items():  # capped: names reach the prompt
            series.setdefault(name, []).append((int(line["timesteps"]), value))
            if length:
                per_step.setdefault(name, []).append(value / length)
    curves = {}
    for name, points in series.items():
        values = np.array([v for _, v in points])
        curves[name] = {
            "points": [points[i] for i in spaced(len(points))],
            "min": float(values.min()),
            "mean": float(values.mean()),
            "max": float(values.max()),
            "std": float(values.std()),
            "mean_abs": float(np.abs(values).mean()),
            "per_step_mean": float(np.mean(per_step[name])) if per_step.get(name) else None,
            "per_step_last": per_step[name][-1] if per_step.get(name) else None,
        }
    return curves


def termination(episodes: list[dict]) -> dict[str, Any]:
    """How the final evaluation episodes ended: terminated vs truncated counts and the mean length."""
    ended = [e.get("termination") for e in episodes]
    lengths = [float(e["length"]) for e in episodes if finite(e.get("length")) is not None]
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
        return {k: e.get(k) for k in ("episode", "seed", "fitness", "success", "return", "length", "termination")}

    stats_b, stats_w = best.get("state_stats"), worst.get("state_stats")
    rows: dict[str, dict[str, Any]] = {}
    if isinstance(stats_b, dict) and isinstance(stats_w, dict):
        shared = [n for n in stats_b if n in stats_w and isinstance(stats_b[n], dict) and isinstance(stats_w[n], dict)]

        def gap(name: str) -> float:
            b, w = finite(stats_b[name].get("mean")), finite(stats_w[name].get("mean"))
            return abs(b - w) if b is not None and w is not None else 0.0

        def constant(name: str) -> bool:
            return all(finite(s[name].get("min")) == finite(s[name].get("max")) for s in (stats_b, stats_w))

        def signature(name: str) -> tuple:
            return tuple(finite(s[name].get(k)) for s in (stats_b, stats_w) for k in ("mean", "min", "max", "last"))

        seen: set[tuple] = set()
        kept = []
        for name in shared:  # one name per quantity (no `rootx.qpos` beside `torso.x`), no constant rows
            if constant(name) or signature(name) in seen:
                continue
            seen.add(signature(name))
            kept.append(name)
        roots = [n for n in kept if not n.endswith(".qpos")][:3]  # the root body's x, y, z first
        joints = sorted((n for n in kept if n not in roots), key=gap, reverse=True)
        rows = {n: {"best": stats_b[n], "worst": stats_w[n]} for n in (roots + joints)[:STATE_ROWS]}
    return {"best": head(best), "worst": head(worst), "state": rows}


def flags(analysis: dict[str, Any]) -> list[dict[str, str]]:
    """Warnings: constant or dominant components, reward hacking, no learning progress, early terminations."""
    found = []
    comps = analysis["components"]
    for name, c in comps.items():
        if len(c["points"]) >= 2 and is_constant(c["std"], c["mean"]):
            found.append(
                {
                    "code": "constant-component",
                    "message": f"component {name} stayed at {g(c['mean'])} "
                    "all through training: it gives no learning signal",
                }
            )
        others = [o["mean_abs"] for other, o in comps.items() if other != name]
        if others and max(others) > 0 and c["mean_abs"] > DOMINANCE_RATIO * max(others):
            found.append(
                {
                    "code": "dominant-component",
                    "message": f"component {name} (mean |value| {g(c['mean_abs'])}) "
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
                    f"({g(first)}; best later {g(best_later)}): the reward does not lead towards the task",
                }
            )
    term = analysis["termination"]
    if term["terminated_fraction"] is not None and term["terminated_fraction"] >= EARLY_TERMINATION:
        found.append(
            {
                "code": "early-termination",
                "message": f"{term['terminated']} of {term['episodes']} final eval "
                f"episodes ended by termination (mean length {steps_text(term['mean_length'])} steps): the policy "
                "falls or leaves the healthy range; reward staying healthy or penalise what ends episodes",
            }
        )
    return found


def _add_llm_summary(
    analysis: dict[str, Any], spec: TaskSpec, model: Model, code: str, env_description: str, images: list
) -> None:
    """Ask the model for likely failure causes and fixes, showing it the reward code, the environment
    description and the task (and `images`, frames of the episodes, if any); append to feedback, record tokens
    and cost."""
    response = None
    try:
        response = model.complete(
            analyzer_messages(spec, code, analysis["feedback"], env_description, images),
            role="analyzer",
            temperature=0.2,
            max_tokens=800,
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


def analyzer_messages(
    spec: TaskSpec, code: str, feedback: str, env_description: str, images: list | None = None
) -> list[dict[str, Any]]:
    """The analyzer LLM's request: the task (with success and fitness unit), the environment, the code, the
    numbers, and `images` (frames of the best and worst episodes, as content parts) when given."""
    from rewardsmith.stages.designer import task_text
    from rewardsmith.stages.prompts import render

    prompt = render(
        "analyzer.j2",
        task=task_text(spec),
        env_description=env_description.strip(),
        code=code.strip(),
        feedback=feedback,
    )
    return [{"role": "user", "content": with_images(prompt, images or [])}]
