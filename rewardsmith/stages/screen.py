"""Trajectory preference screening (CARD's TPE): does a candidate reward rank archived episodes like fitness?

Cheap, no RL. Earlier candidates' final evaluations are archived as `trajectories.npz`, each episode
labelled with its trusted fitness (`rewardsmith.workers.trajectories`). The parent reads them and gives a
sandboxed worker (`rewardsmith.workers.main screen JOB`) copies without the labels (`screen_inputs/`, fitness
0, deleted after): the worker reads them before lock-down, rebuilds `State`s from obs/qpos/qvel, then locks
down, loads the candidate reward and sums it over every episode; it writes the returns to
`screen/screen.json`. The candidate's code never shares a process with a label it could echo as a return.
The parent compares the returns with the labels it kept (the worker ran untrusted code, so only its returns
are taken from it): Spearman rank correlation, and
pairwise preference accuracy over the pairs of episodes whose fitness differs by more than a margin.
A candidate passes with accuracy >= `MIN_ACCURACY`, or, with a note saying so, when the archive cannot judge:
too few episodes or pairs, too little spread (`MIN_SIGNAL`: fitness that differs between policies more than
between one policy's episodes), or no archived policy better than the random one (`LEARNED_Z`). Episodes of a
random policy (`RANDOM_LABEL`, evaluated once per run) widen the spread and are that reference.
The verdict goes to `screen.json` in the candidate folder. `trained_archives` gathers the archives of a run's
trained candidates; the analyzer's reward replay reads the same ones.
"""

from __future__ import annotations

import math
import shutil
import statistics
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from rewardsmith.errors import RewardsmithError
from rewardsmith.files import write_json_atomic
from rewardsmith.run_folder.folder import RunFolder
from rewardsmith.run_folder.names import SCREEN_DIR, SCREEN_FILE, SCREEN_INPUTS_DIR
from rewardsmith.run_folder.records import EVAL_DIR, TRAJECTORIES_FILE
from rewardsmith.stages.env_facts import env_facts
from rewardsmith.stats import gap_in_se, spearman
from rewardsmith.task import TaskSpec
from rewardsmith.workers.executor import Executor
from rewardsmith.workers.job import WorkerJob
from rewardsmith.workers.trajectories import load_episodes, unlabelled_copies

MIN_ACCURACY = 0.6
MIN_EPISODES = 3
MIN_PAIRS = 3
MARGIN = 0.1
"""A pair of episodes counts when their fitness differs by more than this fraction of the fitness range."""
MIN_SIGNAL = 0.5
"""Spread the archive needs before a verdict counts: the share of the fitness variance that lies between its
policies (eta squared) rather than between episodes of one policy. Below it the labels are mostly seed noise,
and a reward could not be told right or wrong from them."""
SURVIVAL_CV = 0.1
"""A reward whose per-step mean (return / length) varies across the archived episodes by at most this fraction of
its size (coefficient of variation) pays about the same every step, whatever the policy does: its return is
explained by how long an episode lasts. Measured on the labelled pools (`bench/screen_calibration.py --rung-rho
--survival-sweep`, archives of `bench/rung_rho.py` policies plus random ones, each reward judged on the others').
Chosen on backward cheetah (6 rewards' 4,096-step policies) and the pendulum (15 rewards at 1/16 to 16,384 steps):
the good cheetah rewards' cv is 1.49 and above, the alive-only one's 0, and on the pendulum the check never
applies (fitness follows episode length), so every threshold from 0.02 to 0.5 gave 0/16 good rejected there.
Held out, reacher (15 rewards at 2,048 and 16,384 steps, judged as the first cut judges, every verdict counting):
at 0.1 (and up to 0.2) the stay-alive check rejected 0 of 8 good rewards, but at 0.3 it rejected 6 of 8 (their cv
lies between 0.2 and 0.3), so 0.1 keeps a factor of two from the nearest good reward measured."""
SURVIVAL_FITNESS_CORR = 0.9
"""... unless the trusted fitness is itself explained by episode length (|correlation| at least this, where lengths
differ): on a task whose goal is to stay up, staying alive is the task, and on one whose episode ends at the goal
(acrobot-swing-up: correlation -0.97 on its first rung's archive), a constant cost a step pays for reaching it
sooner, which is the task. There the accuracy rule alone judges: a per-step term of the wrong sign (an alive bonus
where the episode ends at the goal) orders the episodes against the fitness, and is rejected for that. Round 24
found the second case on acrobot's held-out pool, where the one-sided rule (correlation at least +0.9) rejected 3 of
8 good rewards (their time cost), each ranking the episodes with accuracy 0.92 to 1.00."""
RANDOM_LABEL = "random policy"
"""The label of the reference episodes played with uniform random actions (evaluated once per run)."""
LEARNED_Z = 2.0
"""An archive judges only if one of its policies beats the random policy's episodes by this many standard errors of
the difference (the bar of a run's "no candidate learned enough to be judged", `search.calibration.MARGIN_SE`).
Below it every archived policy is random or worse, and the fitness order among the episodes shows how random
actions spread, not what the task rewards: on mountaincar-reach-flag's first rung (6,250 steps) every policy
stayed below random actions, and the screen rejected all 8 good rewards (their effort cost prefers the timid
policies) and passed all 3 reward-hacking ones (`bench/replay_tables/README.md`)."""


@dataclass
class ScreenReport:
    """The verdict of one screen; `episodes` lists label, episode, fitness and return of each episode judged."""

    passed: bool
    accuracy: float | None
    spearman: float | None
    episodes: int
    message: str
    pairs: int = 0
    details: list[dict[str, Any]] = field(default_factory=list)

    def verdict(self) -> dict[str, Any]:
        """The verdict's fields for a `screen_done` event."""
        return {
            "passed": self.passed,
            "accuracy": self.accuracy,
            "spearman": self.spearman,
            "episodes": self.episodes,
            "message": self.message,
        }

    def finding(self) -> str:
        """One line for attempts.json and the events."""
        return f"[screen] preference: {self.message}"

    def repair_text(self) -> str:
        """The finding, explained for a repair request to the designer, with returns next to fitness."""
        lines = [
            (
                "The trajectory screen rejected this reward file. Earlier policies were evaluated with the task's "
                "trusted fitness; your reward, summed over those recorded episodes, should give higher returns to "
                f"episodes with higher fitness. Problem: {self.message}"
            ),
            "Mean fitness and your mean return per earlier candidate:",
        ]
        by_label: dict[str, list[dict[str, Any]]] = {}
        for d in self.details:
            by_label.setdefault(d["label"], []).append(d)
        for label, rows in list(by_label.items())[:12]:
            lines.append(
                f"- {label}: fitness {np.mean([r['fitness'] for r in rows]):.4g}, "
                f"return {np.mean([r['return'] for r in rows]):.4g} ({len(rows)} episodes)"
            )
        lines.append("Fix the reward so it prefers the behaviour the task asks for, and return the complete file.")
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """The JSON form written to screen.json."""
        return asdict(self)


# -- statistics ----------------------------------------------------------------------------------------------


def comparable_pairs(fitness: np.ndarray, margin: float = MARGIN) -> tuple[np.ndarray, np.ndarray]:
    """Index pairs (i < j) of episodes whose fitness differs by more than `margin` times the fitness range."""
    i, j = np.triu_indices(len(fitness), 1)
    gap = margin * (fitness.max() - fitness.min()) if len(fitness) else 0.0
    keep = np.abs(fitness[i] - fitness[j]) > gap
    return i[keep], j[keep]


def fitness_by_policy(details: list[dict[str, Any]]) -> dict[str, list[float]]:
    """The judged episodes' fitness labels grouped by policy (`label`), in the order the policies first appear."""
    groups: dict[str, list[float]] = {}
    for d in details:
        groups.setdefault(str(d["label"]), []).append(float(d["fitness"]))
    return groups


def signal_share(details: list[dict[str, Any]]) -> float:
    """Eta squared of the fitness labels grouped by policy (`label`): between-policy over total sum of squares;
    0 when every label is equal or there is one policy."""
    fitness = np.array([d["fitness"] for d in details], dtype=float)
    total = float(np.sum((fitness - fitness.mean()) ** 2)) if len(fitness) else 0.0
    if total == 0:
        return 0.0
    between = sum(len(g) * (np.mean(g) - fitness.mean()) ** 2 for g in fitness_by_policy(details).values())
    return float(between / total)


def not_enough(
    details: list[dict[str, Any]], margin: float = MARGIN, min_signal: float = MIN_SIGNAL
) -> ScreenReport | None:
    """A passing report, with the reason, when the archive cannot judge: too few episodes or comparable pairs,
    or too little spread (one policy only, or fitness differences between policies within their episode noise:
    a between-policy share under `min_signal`); else None."""
    pairs = len(comparable_pairs(np.array([d["fitness"] for d in details], dtype=float), margin)[0])
    policies = len({str(d["label"]) for d in details})
    if len(details) < MIN_EPISODES or pairs < MIN_PAIRS:
        reason = f"not enough trajectories to judge ({len(details)} episodes, {pairs} pairs with distinct fitness)"
    elif policies < 2:
        reason = f"too little spread to judge: all {len(details)} episodes come from one policy"
    elif (unlearned := nothing_beats_random(details)) is not None:
        reason = unlearned
    elif (share := signal_share(details)) < min_signal:
        reason = (
            f"too little spread to judge: the fitness differences between the {policies} archived policies are "
            f"within their episodes' noise (between-policy share of the variance {share:.2f}, needs {min_signal})"
        )
    else:
        return None
    return ScreenReport(True, None, None, len(details), f"passed without a verdict: {reason}", pairs, details)


def is_random(label: str) -> bool:
    """Whether an archive label names random-action episodes (`RANDOM_LABEL`, or `<run>/random policy` in a bench)."""
    return label == RANDOM_LABEL or label.endswith(f"/{RANDOM_LABEL}")


def nothing_beats_random(details: list[dict[str, Any]], z: float = LEARNED_Z) -> str | None:
    """Why the archive cannot judge when none of its policies beats the random policy by `z` standard errors of
    the difference (`stats.gap_in_se` over each side's episodes), or None: one does, or it holds no random episodes."""
    groups = fitness_by_policy(details)
    random = [f for label, g in groups.items() if is_random(label) for f in g]
    if not random:
        return None
    lead = {label: gap_in_se(g, random) for label, g in groups.items() if not is_random(label)}
    if not lead:
        return None
    best = max(lead, key=lambda label: lead[label])
    if lead[best] >= z:
        return None
    return (
        f"no archived policy does better than random actions: the best, {best}, has mean fitness "
        f"{statistics.fmean(groups[best]):.4g} against the random policy's {statistics.fmean(random):.4g} (needs a "
        f"lead of {z:g} standard errors), so the fitness order among these episodes shows how random actions spread, "
        "not what the task rewards"
    )


def per_step_returns(details: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], np.ndarray, np.ndarray] | None:
    """(rows, steps, return / steps) of the judged episodes that record their length and a finite return (an
    archive that gave no verdict has none); None when fewer than `MIN_EPISODES` do."""
    rows = [
        d
        for d in details
        if isinstance(d, dict)
        and isinstance(d.get("steps"), (int, float))
        and d["steps"] > 0
        and isinstance(d.get("return"), (int, float))
        and math.isfinite(d["return"])
    ]
    if len(rows) < MIN_EPISODES:
        return None
    steps = np.array([d["steps"] for d in rows], dtype=float)
    return rows, steps, np.array([d["return"] for d in rows], dtype=float) / steps


def varies_per_step(details: list[dict[str, Any]], cv_min: float = SURVIVAL_CV) -> str | None:
    """Why a reward is not a constant per step on the judged episodes, or None: its per-step mean differs across
    them by more than `cv_min` of its size (the stay-alive check's line, `SURVIVAL_CV`); a sparse reward that fired
    on some episodes and not on others does."""
    found = per_step_returns(details)
    if found is None:
        return None
    rows, _, per_step = found
    size, spread = abs(float(per_step.mean())), float(per_step.std())
    if spread <= 1e-12 or spread <= cv_min * size:
        return None
    return f"its per-step return varied across {len(rows)} archived episodes ({per_step.mean():.4g} +- {spread:.2g})"


def survival(details: list[dict[str, Any]], cv_max: float = SURVIVAL_CV, ends_at_goal: bool = False) -> str | None:
    """Why a reward's return on the archive is explained by survival time or a constant per-step term, or None:
    its per-step mean is nearly constant across episodes (`SURVIVAL_CV`) while the task's fitness is not explained
    by episode length (`SURVIVAL_FITNESS_CORR`). Needs each episode's `steps`; None without them. Where the env
    ends an episode early only at the goal (`ends_at_goal`), a negative per-step mean, a cost a step, pays for
    reaching the goal sooner, however few archived episodes got there: it stands aside (the accuracy rule judges)."""
    found = per_step_returns(details)
    if found is None:
        return None
    rows, steps, per_step = found
    size = abs(float(per_step.mean()))
    if size <= 1e-12 or float(per_step.std()) > cv_max * size:
        return None
    if ends_at_goal and per_step.mean() < 0:
        return None
    fitness = np.array([d["fitness"] for d in rows], dtype=float)
    varied = steps.std() > 0 and fitness.std() > 0
    length_fit = float(np.corrcoef(steps, fitness)[0, 1]) if varied else None
    if length_fit is not None and abs(length_fit) >= SURVIVAL_FITNESS_CORR:
        return None  # length explains the fitness: the accuracy rule judges whether the return follows it
    where = (
        f"episode length explains the return (correlation {np.corrcoef(steps, per_step * steps)[0, 1]:.2f}) but not "
        f"the task's fitness (correlation {length_fit:.2f})"
        if length_fit is not None
        else "every archived episode has the same length, so every policy earns about the same return"
    )
    pays, fix = (
        (
            "staying in the episode",
            "make the terms that measure the task's progress larger than any per-step bonus, or drop the bonus",
        )
        if per_step.mean() > 0  # a positive per-step mean pays for lasting, a negative one for ending
        else (
            "ending the episode sooner",
            "make the terms that measure the task's progress larger than the per-step cost, or drop the cost",
        )
    )
    return (
        f"your reward's return is explained by survival time: its per-step mean is nearly the same on all "
        f"{len(rows)} archived episodes ({per_step.mean():.4g} +- {per_step.std():.2g}, varying by "
        f"{per_step.std() / size:.0%} of its size, at most {cv_max:.0%} allowed), so it pays for {pays} rather than "
        f"for progress on the task ({where}). A constant per-step term dominates it: {fix}"
    )


def judge(
    details: list[dict[str, Any]],
    margin: float = MARGIN,
    min_accuracy: float = MIN_ACCURACY,
    min_signal: float = MIN_SIGNAL,
    ends_at_goal: bool = False,
) -> ScreenReport:
    """The verdict from per-episode `label`, `episode`, `fitness` and `return` (`ends_at_goal`: see `survival`)."""
    early = not_enough(details, margin, min_signal)
    if early is not None:
        return early
    fitness = np.array([d["fitness"] for d in details], dtype=float)
    returns = np.array([d["return"] for d in details], dtype=float)
    rho = spearman(returns, fitness)
    i, j = comparable_pairs(fitness, margin)
    agree = np.sign(returns[i] - returns[j]) * np.sign(fitness[i] - fitness[j])
    accuracy = float(np.mean((agree + 1) / 2))  # a tie in return counts half
    stats = f"accuracy {accuracy:.2f} on {len(i)} pairs (Spearman {'-' if rho is None else f'{rho:.2f}'} over {len(details)} episodes)"
    alive = survival(details, ends_at_goal=ends_at_goal)
    if alive is not None:
        return ScreenReport(False, accuracy, rho, len(details), f"{alive}; {stats}", len(i), details)
    if accuracy >= min_accuracy:
        return ScreenReport(True, accuracy, rho, len(details), stats, len(i), details)
    worst = int(np.argmax(np.where(agree < 0, np.abs(fitness[i] - fitness[j]), -1.0)))
    hi, lo = (i[worst], j[worst]) if fitness[i[worst]] > fitness[j[worst]] else (j[worst], i[worst])
    lead = (
        "your reward prefers the trajectories with lower fitness"
        if accuracy < 0.5
        else "your reward barely tells better trajectories from worse ones"
    )
    message = f"{lead}: {stats}"
    if agree[worst] < 0:
        message += (
            f"; e.g. episode of {details[hi]['label']} (fitness {fitness[hi]:.3g}) got return {returns[hi]:.4g} "
            f"while an episode of {details[lo]['label']} (fitness {fitness[lo]:.3g}) got {returns[lo]:.4g}"
        )
    return ScreenReport(False, accuracy, rho, len(details), message, len(i), details)


# -- parent side -------------------------------------------------------------------------------------------------


def trained_archives(folder: RunFolder, before_iteration: int | None = None) -> dict[str, Path]:
    """{candidate id: its `eval/trajectories.npz`} of every candidate the parent recorded as trained in its
    `candidate.json` (never a file a worker wrote about itself), oldest first; with `before_iteration`, only
    candidates of earlier iterations. Candidates without an archive the parent accepted (with its proof) are left
    out."""
    return {
        r.id: path
        for r in folder.candidates()
        if (before_iteration is None or r.iteration < before_iteration)
        and r.status == "trained"
        and (path := folder.cand_dir(r.iteration, r.index) / EVAL_DIR / TRAJECTORIES_FILE).is_file()
        and folder.cand_of(r).proven(path)
    }


# -- the screen ---------------------------------------------------------------------------------------------


def screen(
    spec: TaskSpec,
    reward_path: Path,
    out_dir: Path,
    trajectory_files: Mapping[str, Path],
    *,
    executor: Executor,
    ast_gate: bool = True,
    timeout_s: float = 300,
    min_signal: float = MIN_SIGNAL,
) -> ScreenReport:
    """Screen a reward file on archived trajectories (label, e.g. a candidate id -> `trajectories.npz`) in a
    sandboxed worker under `out_dir/screen/`; writes the verdict to `out_dir/screen.json`. An unreadable
    archive is skipped; a reward that fails on the archived states fails the screen."""
    out_dir = Path(out_dir)
    labels, archives, skipped = [], {}, []
    for label, path in trajectory_files.items():
        try:
            archives[label] = episodes = load_episodes(path)
        except RewardsmithError as e:
            skipped.append(str(e))
            continue
        labels += [
            {"label": label, "episode": i, "fitness": e.fitness, "steps": e.steps} for i, e in enumerate(episodes)
        ]
    report = not_enough(labels, min_signal=min_signal)
    if report is None:
        try:
            files = unlabelled_copies(archives, out_dir / SCREEN_INPUTS_DIR)
            goal_only = env_facts(spec).ends_only_at_goal
            report = _screen_in_worker(
                spec, reward_path, out_dir, files, labels, executor, ast_gate, timeout_s, min_signal, goal_only
            )
        finally:
            shutil.rmtree(out_dir / SCREEN_INPUTS_DIR, ignore_errors=True)
    if skipped:
        report.message += f" (skipped unreadable archives: {'; '.join(skipped)[:500]})"
    write_json_atomic(out_dir / SCREEN_FILE, report.to_dict())
    return report


def _screen_in_worker(
    spec: TaskSpec,
    reward_path: Path,
    out_dir: Path,
    files: dict[str, str],
    labels: list[dict[str, Any]],
    executor: Executor,
    ast_gate: bool,
    timeout_s: float,
    min_signal: float,
    ends_at_goal: bool,
) -> ScreenReport:
    """Run the screen worker on the label-free `files`, and judge its returns against the parent's `labels`."""
    from rewardsmith.workers.run import read_json_file

    job = WorkerJob(
        mode="screen",
        task_path=spec.source,
        reward_path=Path(reward_path).resolve(),
        out_dir=(out_dir / SCREEN_DIR).resolve(),
        ast_gate=ast_gate,
        options={"trajectories": files, "timeout_s": timeout_s, "stall_timeout_s": timeout_s},
    )
    result = executor.submit(job).result()
    if result.status == "failed":
        raise RewardsmithError(
            f"the screen worker could not run {Path(reward_path).name}: {result.error} "
            f"(log: {job.out_dir / 'worker.log'})"
        )
    returns = read_returns(read_json_file(job.out_dir / SCREEN_FILE), labels) if result.ok else None
    if returns is None:
        failure = result.error or "the worker ended without a readable screen.json"
        return ScreenReport(
            False, None, None, len(labels), f"the reward failed on the archived trajectories: {failure}", 0, labels
        )
    return judge(
        [{**d, "return": r} for d, r in zip(labels, returns)], min_signal=min_signal, ends_at_goal=ends_at_goal
    )


def read_returns(raw: Any, labels: list[dict[str, Any]]) -> list[float] | None:
    """The worker's returns, in the order of `labels`; None unless there is one finite number per episode."""
    rows = raw.get("episodes") if isinstance(raw, dict) else None
    if not isinstance(rows, list) or len(rows) != len(labels):
        return None
    returns = []
    for row, label in zip(rows, labels):
        value = row.get("return") if isinstance(row, dict) else None
        if (
            not isinstance(value, (int, float))
            or isinstance(value, bool)
            or not math.isfinite(value)
            or row.get("label") != label["label"]
            or row.get("episode") != label["episode"]
        ):
            return None
        returns.append(float(value))
    return returns
