"""Report plots as inline SVG (matplotlib, Agg backend): iteration progress, learning curves, reward components."""

from __future__ import annotations

import io
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from rewardsmith.files import read_json, read_jsonl
from rewardsmith.run_folder.names import FINAL_DIR, JOB_FILE, METRICS_FILE, SEED_DIRS, cand_dir_name
from rewardsmith.run_folder.records import FinalResult
from rewardsmith.views.candidate_view import CandidateView, metrics_points
from rewardsmith.views.run_view import RunView

plt.rcParams.update(
    {
        "font.size": 9,
        "axes.spines.top": False,
        "axes.spines.right": False,
        "svg.fonttype": "none",
        "text.parse_math": False,  # names come from worker output: plain text, never mathtext ($\\x{...}$ crashed it)
        "text.usetex": False,
    }
)
REPORTED_FITNESS = "fitness during training\n(reported by the training worker, untrusted)"


MAX_POINTS = 400
"""Points drawn per line: a worker may report thousands (up to `rewardsmith.files.MAX_JSONL_LINES`), and every
point is an SVG path node in the report."""


def thin(points: list[tuple[float, float]], limit: int = MAX_POINTS) -> list[tuple[float, float]]:
    """At most `limit` evenly spaced points of a line, its first and last kept."""
    if len(points) <= limit:
        return points
    step = (len(points) - 1) / (limit - 1)
    return [points[round(i * step)] for i in range(limit)]


def _svg(fig) -> str:
    """The figure as an inline <svg> element (no XML prolog), closed afterwards."""
    buffer = io.StringIO()
    fig.savefig(buffer, format="svg", bbox_inches="tight")
    plt.close(fig)
    text = buffer.getvalue()
    return text[text.index("<svg") :]


def empty_iterations(view: RunView) -> list[int]:
    """Iterations in which no candidate was trained (every one rejected or failed)."""
    return [i for i, group in view.by_iteration().items() if not any(c.fitness is not None for c in group)]


def iteration_progress(view: RunView) -> str | None:
    """Every trained candidate's search fitness per iteration (dots, with one standard error), the selected best so
    far (line: the run's own rule, so a wide-error lucky mean is not it), and a mark on each iteration that trained
    nothing."""
    trained = [c for c in view.candidates if c.fitness is not None]
    if not trained:
        return None
    fig, ax = plt.subplots(figsize=(6.4, 3.2))
    compared = {c.id: view.search_fitness(c) for c in trained}  # a mean of two seeds where the pick had one
    ax.errorbar(
        [c.iteration for c in trained],
        [float(compared[c.id][0] or 0.0) for c in trained],
        yerr=[float(compared[c.id][1] or 0.0) for c in trained],
        fmt="o",
        color="#8aa4c8",
        capsize=3,
        label="candidates (± 1 s.e.; the mean of its seeds where trained on two)",
        zorder=3,
    )
    for c in trained:
        ax.annotate(
            c.id, (c.iteration, float(compared[c.id][0] or 0.0)), textcoords="offset points", xytext=(5, 3), fontsize=7
        )
    iterations = sorted({c.iteration for c in view.candidates})
    best = [view.best_until(i) for i in iterations]
    line = [float(f) if b and (f := view.search_fitness(b)[0]) is not None else float("nan") for b in best]
    ax.step(iterations, line, where="post", color="#d1495b", linewidth=2, label="selected best so far")
    for i in empty_iterations(view):
        ax.axvline(i, color="#c0392b", linestyle=":", linewidth=1)
        ax.annotate(
            "nothing trained",
            (i, 0.5),
            xycoords=("data", "axes fraction"),
            rotation=90,
            fontsize=7,
            color="#c0392b",
            ha="right",
            va="center",
        )
    ax.set_xticks(iterations)
    ax.set_xlabel("iteration")
    ax.set_ylabel("search fitness")
    ax.legend(frameon=False, loc="best")
    return _svg(fig)


def search_training_of_seed(cand: Path, seed: int) -> tuple[Path, str] | None:
    """(the folder, a label) of the search's training of a candidate on `seed`, which a final seed reused: its own
    training, or its longest repeat on that seed (`second_seed/<budget>/`, `third_seed/<budget>/`), found by the
    seed its parent-written `job.json` names; None without one."""
    repeats = [
        (int(budget.name), budget)
        for extra in SEED_DIRS
        for budget in (cand / extra).glob("*")
        if budget.name.isdigit() and _job_seed(budget) == seed
    ]
    if repeats:
        return max(repeats)[1], "search repeat"
    return (cand, "search training") if _job_seed(cand) == seed else None


def _job_seed(folder: Path) -> int | None:
    job = read_json(folder / JOB_FILE)
    seed = job.get("seed") if isinstance(job, dict) else None
    return seed if isinstance(seed, int) else None


def final_curves(run_dir: Path, final: FinalResult | None) -> str | None:
    """The final retraining: fitness against env steps as each training worker reported it, one line per seed
    (final/seed_<s>/metrics.jsonl; a seed that reused a search training of the winner on the same seed is drawn
    from that training's folder, `search_training_of_seed`)."""
    run_dir = Path(run_dir)
    seeds = [r.seed for r in final.seeds] if final else []
    cid = final.candidate if final else ""
    iteration, _, index = cid.partition(".")
    fig, ax = plt.subplots(figsize=(6.4, 3.0))
    drawn = 0
    for seed in seeds:
        folder, label = run_dir / FINAL_DIR / f"seed_{seed}", f"seed {seed}"
        if not (folder / METRICS_FILE).is_file() and iteration.isdigit() and index.isdigit():
            found = search_training_of_seed(run_dir / cand_dir_name(int(iteration), int(index)), seed)
            if found is None:
                continue
            folder, label = found[0], f"seed {seed} ({cid}'s {found[1]})"
        if not (folder / METRICS_FILE).is_file():
            continue
        records, _ = read_jsonl(folder / METRICS_FILE)
        points = thin([(m.timesteps, m.fitness) for m in metrics_points(records, "eval") if m.fitness is not None])
        if points:
            xs, ys = zip(*points)
            ax.plot(xs, ys, marker="o", markersize=3, label=label)
            drawn += 1
    if not drawn:
        plt.close(fig)
        return None
    ax.set_xlabel("env steps")
    ax.set_ylabel(REPORTED_FITNESS)
    ax.legend(frameon=False, fontsize=7, loc="best")
    return _svg(fig)


def learning_curves(view: RunView) -> str | None:
    """Fitness against env steps as the training worker reported it (untrusted), one line per trained candidate."""
    curves = [c for c in view.candidates if len(c.evals) > 0]
    if not curves:
        return None
    fig, ax = plt.subplots(figsize=(6.4, 3.2))
    for c in curves:
        points = thin([(m.timesteps, m.fitness) for m in c.evals if m.fitness is not None])
        if points:
            xs, ys = zip(*points)
            ax.plot(xs, ys, marker="o", markersize=3, label=c.id)
    ax.set_xlabel("env steps")
    ax.set_ylabel(REPORTED_FITNESS)
    ax.legend(frameon=False, fontsize=7, ncol=2, loc="best")
    return _svg(fig)


def component_plot(c: CandidateView) -> str | None:
    """Each reward component's episode sum over training (metrics.jsonl "train" lines) and in the final
    evaluation (summary.json), so a dominating or sign-flipped term shows at a glance."""
    series: dict[str, list[tuple[float, float]]] = {}
    for m in c.train:
        for name, value in m.components.items():
            series.setdefault(name, []).append((m.timesteps, value))
    final = c.components if c.evaluation else {}
    if not series and not final:
        return None
    fig, (left, right) = plt.subplots(1, 2, figsize=(7.6, 2.6), gridspec_kw={"width_ratios": [3, 2]})
    names = sorted(set(series) | set(final))
    colors = {name: f"C{i % 10}" for i, name in enumerate(names)}
    for name in names:
        if name in series:
            xs, ys = zip(*thin(series[name]))
            left.plot(xs, ys, marker="o", markersize=3, label=name, color=colors[name])
    left.axhline(0, color="#999", linewidth=0.6)
    left.set_xlabel("env steps")
    left.set_ylabel("episode sum")
    left.set_title("during training", fontsize=9, loc="left")
    if series:
        left.legend(frameon=False, fontsize=7, loc="best")
    shown = [n for n in names if n in final]
    bars = right.barh(shown, [final[n] for n in shown], color=[colors[n] for n in shown])
    right.bar_label(bars, fmt="%.3g", fontsize=7, padding=2)
    right.margins(x=0.3)  # room for the labels of negative bars
    right.axvline(0, color="#999", linewidth=0.6)
    right.invert_yaxis()
    right.set_title("final evaluation (mean episode sum)", fontsize=9, loc="left")
    fig.tight_layout()
    return _svg(fig)
