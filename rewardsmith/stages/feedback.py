"""The analyzer's feedback text: what the designer reads about a trained candidate, from its analysis.

Curves from `metrics.jsonl` are labelled as reported by the training worker (it ran the reward, so they decide
nothing); only the evaluation worker's final numbers are the trusted task score.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from rewardsmith.stages.reflection import TRAINING_PAIRS, of_candidates

CURVE_POINTS = 10
REPORTED = "as reported by the training worker (untrusted)"
"""The label of every curve from `metrics.jsonl`."""


def finite(value: Any) -> float | None:
    """A finite JSON number as a float; None for anything else (a bool, a string, NaN, inf)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    return float(value)


def spaced(n: int, k: int = CURVE_POINTS) -> list[int]:
    """At most `k` evenly spaced indices into `n` items."""
    return sorted({int(round(i)) for i in np.linspace(0, n - 1, min(n, k))}) if n else []


def g(value: float | None) -> str:
    """A number in 3 significant digits, |value| < 1e-6 as 0, "-" for None."""
    return "-" if value is None else "0" if abs(value) < 1e-6 else f"{value:.3g}"


def steps_text(value: float | None) -> str:
    """A step count, "-" for None."""
    return "-" if value is None else f"{value:.0f}"


def _curve_text(curve: list[tuple[int, float]], digits=g) -> str:
    return ", ".join(f"{digits(v)} @ {t}" for t, v in (curve[i] for i in spaced(len(curve))))


def _trace_columns(traces: list[str]) -> set[str]:
    """The state quantities the step traces show (their header rows' columns)."""
    return {c.strip() for t in traces if t.strip().startswith("step | ") for c in t.split("|")[1:]}


def feedback_text(analysis: dict[str, Any]) -> str:
    """Compact plain text (<= ~70 lines) for the designer: curves, components, episode ends and traces, warnings."""
    lines = []
    final = analysis["final"]
    shown_return = f", return of your reward {g(final['return'])}" if final.get("return") is not None else ""
    lines.append(
        f"final evaluation (trusted task score): fitness {g(final['fitness'])}, success rate {g(final['success_rate'])}, "
        f"episode length {steps_text(final['ep_len'])} steps{shown_return}"
    )
    curves = [
        f"  {label}: {_curve_text(analysis[key], digits)}"
        for label, key, digits in (
            ("fitness", "fitness_curve", g),
            ("return (your reward)", "return_curve", g),
            ("episode length (steps)", "length_curve", steps_text),  # 1000, not 3 digits' 1e+03
        )
        if analysis.get(key)
    ]
    if curves:
        lines += [f"during training, {REPORTED}:", *curves]
    comps = analysis["components"]
    if comps:
        lines.append("reward components (episode sums at evenly spaced points over training; mean per step):")
        for name, c in list(comps.items())[:20]:
            values = ", ".join(g(v) for _, v in c["points"])
            step = f"; per step {g(c['per_step_mean'])}" if c.get("per_step_mean") is not None else ""
            lines.append(f"  {name}: [{values}]  min {g(c['min'])} mean {g(c['mean'])} max {g(c['max'])}{step}")
    term = analysis["termination"]
    if term["episodes"]:
        lines.append(
            f"final eval episodes: {term['terminated']} of {term['episodes']} "
            f"({100 * term['terminated_fraction']:.0f}%) ended by termination, {term['truncated']} by the "
            f"time limit; mean length {steps_text(term['mean_length'])} steps"
        )
        ends: dict[str, int] = {}
        for reason in analysis.get("ends") or []:
            ends[reason] = ends.get(reason, 0) + 1
        lines += [f"  ended: {reason}" + (f" (x{n})" if n > 1 else "") for reason, n in list(ends.items())[:6]]
    ep = analysis["episodes"]
    if ep:
        b, w = ep["best"], ep["worst"]
        lines.append(
            f"best vs worst eval episode: fitness {g(finite(b['fitness']))} vs {g(finite(w['fitness']))}, "
            f"length {b['length']} vs {w['length']}"
        )
        traced = _trace_columns(analysis.get("traces") or [])
        for name, row in ep["state"].items():
            if name in traced:  # the step traces show it already
                continue
            bs, ws = row["best"], row["worst"]
            lines.append(
                f"  {name}: mean {g(finite(bs.get('mean')))} vs {g(finite(ws.get('mean')))}, "
                f"range [{g(finite(bs.get('min')))}, {g(finite(bs.get('max')))}] vs "
                f"[{g(finite(ws.get('min')))}, {g(finite(ws.get('max')))}], "
                f"last {g(finite(bs.get('last')))} vs {g(finite(ws.get('last')))}"
            )
    shown = set(lines)
    lines += [t for t in analysis.get("traces") or [] if not (t.startswith("  ended: ") and t in shown)]
    corr = analysis["return_fitness_correlation"]
    if corr.get("rho") is not None:
        over = of_candidates(corr["episodes"], corr.get("candidates") or 1)
        lines.append(
            f"return of your reward vs trusted fitness: Spearman rho = {corr['rho']:.2f} over {over} "
            f"(fitness spread {g(corr['fitness_spread'])}; {corr.get('returns') or TRAINING_PAIRS})"
        )
    replay = analysis.get("replay") or {}
    if replay.get("status") == "failed":
        lines.append(
            f"(your reward could not be replayed on the recorded evaluation episodes, {replay['reason'][:200]}; "
            "the step traces show no component values and the return/fitness check uses the training worker's reports)"
        )
    elif replay.get("others_failed"):
        lines.append(
            f"(your reward failed on other candidates' recorded episodes, {replay['others_failed'][:200]}; "
            "the return/fitness check uses this candidate's own episodes only)"
        )
    held = analysis["reward_hacking"].get("held_back") or []
    if held and corr.get("rho") is not None and corr["rho"] < 0:
        lines.append("  (too little evidence to judge reward hacking: " + "; ".join(held) + ")")
    if analysis["flags"]:
        lines.append("warnings:")
        lines += [f"- {f['message']}" for f in analysis["flags"]]
    if analysis["problems"]:
        lines.append("missing data: " + "; ".join(analysis["problems"][:5]))
    return "\n".join(lines[:70])
