"""The jobs of a run's successive halving (`rewardsmith.search.halving` is the schedule): training a candidate to a
rung's budget (`rung_trainer`), training it again on a second seed when it is close to a rival or leads the last
rung (`rung_repeater`), screening the first rung (`rung_screener`), and one iteration's halving with its
`halving.json` (`halve_iteration`)."""

from __future__ import annotations

import os
import shutil
from concurrent.futures import ThreadPoolExecutor

from rewardsmith.config import ResolvedConfig
from rewardsmith.errors import RewardsmithError
from rewardsmith.files import write_json_atomic
from rewardsmith.run_folder.folder import RunFolder
from rewardsmith.run_folder.names import (
    CHECKPOINT_FILE,
    HALVING_FILE,
    REWARD_FILE,
    RUNG_SCREEN_DIR,
    SCREEN_FILE,
    SEED_DIRS,
    Event,
    iter_dir_name,
)
from rewardsmith.run_folder.records import WEIGHTS_FILE, CandidateRecord
from rewardsmith.search.calibration import MARGIN_SE
from rewardsmith.search.calibration import first_rung as calibrated_rung
from rewardsmith.search.evidence import Evidence, load_evidence
from rewardsmith.search.halving import (
    RepeatRung,
    Rung,
    ScreenRung,
    TrainRung,
    first_rung_minimum,
    rung_budgets,
    rung_episodes,
    successive_halving,
)
from rewardsmith.search.live import Progress
from rewardsmith.search.rung_evidence import FirstRung, default_fractions, past_a_blind_rung, rungs_from
from rewardsmith.search.selection import rule_for
from rewardsmith.search.spread import Repeat
from rewardsmith.search.training import (
    fallback_line,
    record_training,
    reward_budget,
    screen_archives,
    train_and_evaluate,
    warm_start,
)
from rewardsmith.stages.screen import ScreenReport, screen
from rewardsmith.task import TaskSpec, task_family
from rewardsmith.workers.executor import Executor

SECOND_SEED_OFFSET = 1
"""A repeat trains on the run's seed plus this (a third seed, plus twice this)."""


def rung_trainer(
    folder: RunFolder, config: ResolvedConfig, spec: TaskSpec, executor: Executor, progress: Progress
) -> TrainRung:
    """The `TrainRung` of a run: one sandboxed training job per rung in the candidate's folder, measured by the
    trusted evaluation worker (`rewardsmith.search.training.train_and_evaluate`). A resumed rung starts from the
    candidate's own weights of its previous rung (`checkpoint.safetensors`, kept by the parent) and trains only
    the steps still missing."""

    def train(record: CandidateRecord, timesteps: int, resume: bool) -> CandidateRecord:
        cand = folder.cand_dir(record.iteration, record.index)
        checkpoint = cand / CHECKPOINT_FILE
        resume = resume and checkpoint.is_file() and record.status == "trained" and 0 < record.timesteps < timesteps
        done = record.timesteps if resume else 0
        warm = warm_start(folder, record) if config.warm_start and not resume and record.timesteps == 0 else None
        folder.event(
            Event.TRAINING_STARTED,
            candidate=record.id,
            timesteps=timesteps,
            resumed_from=done or None,
            **({"warm_start_from": record.parent} if warm else {}),
        )
        progress.update(record.id, "training", done=done, total=timesteps)
        result, evaluation = train_and_evaluate(
            spec.source,
            cand / REWARD_FILE,
            cand,
            timesteps=timesteps - done,
            seed=config.seed,
            eval_episodes=rung_episodes(spec.train.eval_episodes, timesteps, config.timesteps),
            executor=executor,
            device=config.device,
            on_progress=lambda d, t: progress.update(record.id, "training", done=done + d, total=timesteps),
            on_eval_progress=lambda d, t: progress.update(record.id, "evaluating", done=d, total=t),
            continue_from=checkpoint if resume else warm,
            timesteps_done=done,
            reward_budget_s=reward_budget(folder.cand_of(record).verified_json(folder.cand_of(record).critic_path)),
            options=config.job_options(),
        )
        record = record_training(folder, record, result, evaluation, timesteps)
        if result.summary.get("backend_fallback"):
            progress.log(f"{record.id}: {fallback_line(result.summary['backend_fallback'])}")
        if record.status == "trained" and (cand / WEIGHTS_FILE).is_file():
            tmp = cand / f".{CHECKPOINT_FILE}.{os.getpid()}.tmp"
            shutil.copyfile(cand / WEIGHTS_FILE, tmp)
            os.replace(tmp, checkpoint)
        trained = record.status == "trained"
        state = f"rung {timesteps:,}" if trained else f"{record.status} at rung {timesteps:,}"
        progress.update(record.id, state, fitness=record.fitness, reason="" if trained else record.reason[:100])
        return record

    return train


def rung_screener(
    folder: RunFolder, spec: TaskSpec, executor: Executor, progress: Progress, iteration: int
) -> ScreenRung:
    """The `ScreenRung` of a run: every candidate's reward replayed in the sandboxed screen worker over the archive
    of all trained candidates so far (their last evaluations: here, the first rung's) and the run's random-action
    episodes, verdicts in `cand_<j>/rung_screen/screen.json`. The archive needs no between-policy spread here
    (`min_signal=0`): early policies barely differ, but each episode's trusted fitness is exact, so a reward that
    orders them against it is wrong on real states; it does need one policy better than random actions
    (`screen.LEARNED_Z`), else there is no verdict. The cut only reorders, and only when someone passed."""

    def screen_all(records: list[CandidateRecord]) -> dict[str, ScreenReport]:
        archives = screen_archives(folder, spec, executor)

        def one(record: CandidateRecord) -> ScreenReport | None:
            cand = folder.cand_dir(record.iteration, record.index)
            progress.update(record.id, "screen")
            try:
                verdict = screen(
                    spec, cand / REWARD_FILE, cand / RUNG_SCREEN_DIR, archives, executor=executor, min_signal=0.0
                )
            except RewardsmithError as e:
                progress.log(f"{record.id}: the first-cut screen could not run, no verdict ({e})")
                return None
            folder.cand_of(record).sign(cand / RUNG_SCREEN_DIR / SCREEN_FILE)  # `load_evidence` reads it back
            folder.event(
                Event.SCREEN_DONE,
                candidate=record.id,
                iteration=iteration,
                rung=1,
                **verdict.verdict(),
            )
            return verdict

        with ThreadPoolExecutor(
            max_workers=max(1, min(executor.workers, len(records))), thread_name_prefix="screen"
        ) as pool:
            verdicts = list(pool.map(one, records))
        return {r.id: v for r, v in zip(records, verdicts) if v is not None}

    return screen_all


def rung_repeater(
    folder: RunFolder,
    config: ResolvedConfig,
    spec: TaskSpec,
    executor: Executor,
    progress: Progress,
    evidence: Evidence,
) -> RepeatRung:
    """The `RepeatRung` of a run: each close candidate (or the last rung's leader) trained again from scratch on one
    more seed to the rung's budget (a second, in `cand_<j>/second_seed/<budget>/`; a third, in `third_seed/`), by
    the same sandboxed training and trusted evaluation as its rung (`train_and_evaluate`); the trusted fitnesses go
    to the run's `seed_spread.json`. A seed already recorded there (a resumed run) is not trained again; a failed
    training records nothing."""
    spread = evidence.spread
    assert spread is not None

    def one(record: CandidateRecord, budget: int, seeds: int) -> int:
        existing = spread.repeat_of(record.id, budget)
        have = len(existing.seeds) if existing is not None else 1
        if have >= min(seeds, len(SEED_DIRS) + 1) or record.fitness is None:
            return 0
        cand = folder.cand_dir(record.iteration, record.index)
        seed = config.seed + have * SECOND_SEED_OFFSET
        label = f"{record.id} s{seed}"
        progress.update(label, "training", done=0, total=budget)
        result, evaluation = train_and_evaluate(
            spec.source,
            cand / REWARD_FILE,
            cand / SEED_DIRS[have - 1] / str(budget),
            timesteps=budget,
            seed=seed,
            eval_episodes=rung_episodes(spec.train.eval_episodes, budget, config.timesteps),
            executor=executor,
            device=config.device,
            on_progress=lambda d, t: progress.update(label, "training", done=d, total=budget),
            on_eval_progress=lambda d, t: progress.update(label, "evaluating", done=d, total=t),
            reward_budget_s=reward_budget(folder.cand_of(record).verified_json(folder.cand_of(record).critic_path)),
            options=config.job_options(),
        )
        if evaluation is None or evaluation.fitness_mean is None:
            progress.update(label, "failed", reason=result.error[:100])
            return 0
        fitness, se = float(evaluation.fitness_mean), float(evaluation.fitness_se or 0.0)
        if existing is not None:
            repeat = existing.with_seed(seed, fitness, se, tuple(evaluation.fitness))
        else:
            first = folder.cand_of(record).evaluation()
            repeat = Repeat(
                record.id,
                budget,
                (config.seed, seed),
                (float(record.fitness), fitness),
                (float(record.fitness_se or 0.0), se),
                (tuple(first.fitness) if first is not None else (), tuple(evaluation.fitness)),
            )
        spread.add(repeat)
        folder.event(Event.SEED_REPEATED, **repeat.as_dict() | {"episodes": None})
        progress.update(label, "trained", fitness=evaluation.fitness_mean)
        return int(result.summary.get("timesteps") or budget)

    def repeat(records: list[CandidateRecord], budget: int, seeds: int = 2) -> int:
        with ThreadPoolExecutor(max_workers=max(1, min(executor.workers, len(records)))) as pool:
            steps = sum(pool.map(lambda r: one(r, budget, seeds), records))
        if steps:
            ids, at = ", ".join(r.id for r in records), f"at {budget:,} steps"
            why = (
                f"still within noise {at}, one more seed each (up to {seeds})"
                if seeds > 2
                else f"within noise {at}"
                if len(records) > 1
                else f"leads {at}, trained on a second seed before it is returned"
            )
            progress.log(f"{ids} {why}: {evidence.floor(budget).describe()}")
        return steps

    return repeat


def rung_fractions(config: ResolvedConfig, spec: TaskSpec) -> tuple[list[float], FirstRung | None]:
    """The rungs of a run as fractions of its budget, and why the first is that long: `--rungs` as given, Eureka's
    single full rung, else the task's first rung (`rewardsmith.search.rung_evidence`) and the default later ones,
    with the first moved past a rung the task's calibration measured at this budget and found blind."""
    if config.rungs is not None:
        return config.rung_fractions(), FirstRung(config.rungs[0], "--rungs", task_family(spec))
    if config.strategy == "eureka":
        return config.rung_fractions(), None
    return default_rungs(spec, config.timesteps)


def default_rungs(spec: TaskSpec, timesteps: int) -> tuple[list[float], FirstRung]:
    """The default strategy's rungs for a run of `timesteps` steps, and why the first is that long: the task's
    first rung and the later ones (`default_fractions`), the first moved past a rung the task's calibration measured
    at this budget and found blind (`rewardsmith.search.rung_evidence.past_a_blind_rung`)."""
    fractions, first = default_fractions(spec)
    budget = calibrated_rung(spec, timesteps)
    margin = blind_margin(spec, budget)
    moved = past_a_blind_rung(first, budget, margin) if margin is not None else None
    return rungs_from(moved) if moved is not None else (fractions, first)


def going_on(rung: Rung, cid: str) -> str:
    """A promoted candidate as the rung's log line names it: with why, when it went on beyond the `keep` fraction
    (within noise of the cut line) or although the screen rejected it (kept so that two compare at the next rung)."""
    if cid in rung.noise_kept:
        return f"{cid} (within noise of the cut line)"
    verdict = rung.screen.get(cid)
    if verdict is not None and not verdict.passed and any(v.passed for v in rung.screen.values()):
        return f"{cid} (rejected by the screen, kept so that two compare)"
    return cid


def blind_margin(spec: TaskSpec, budget: int) -> float | None:
    """A good reward's lead over a weak one, in se, where the spec's own fresh calibration measured this very
    first-rung budget and found it blind (below `MARGIN_SE`); None where it did not (or measured another budget)."""
    cal = spec.fresh_calibration
    margin = cal.first_rung_margin_se if cal is not None else None
    if cal is None or cal.first_rung != budget or margin is None or margin >= MARGIN_SE:
        return None
    return margin


def blind_first_cut(spec: TaskSpec, first_budget: int, why: FirstRung | None = None) -> str | None:
    """Why the first cut gets no screen verdicts in this run, or None. Where the spec's own calibration measured this
    very first-rung budget and found it blind, the rung's policies say nothing about the rewards, and on the
    mountaincar-discrete-reach-flag pool the screen's verdicts on them dropped the one reward that learns the task in
    every search (the calibration-blind gate: written down before that pool's converged labels, adopted on them;
    bench/replay_tables/README.md). Where the run's first cut was moved past such a rung (`rung_fractions`), it has
    no screen either: it was adopted without one, and on mountaincar-reach-flag's pool the screen there cut the
    replayed hit rate from 100 to 53 in 100. A spec without a fresh calibration at this budget keeps the screen,
    with its better-than-random check."""
    if why is not None and why.how == "past a blind rung":
        return f"no screen at the first cut ({first_budget:,} steps): it was moved past a rung calibration found blind"
    margin = blind_margin(spec, first_budget)
    if margin is None:
        return None
    return (
        f"no screen at the first cut: calibration found {first_budget:,} steps blind ({margin:+.2f} se: a good "
        "reward does not lead a weak one there), so the cut ranks by fitness alone"
    )


def halve_iteration(
    folder: RunFolder,
    config: ResolvedConfig,
    spec: TaskSpec,
    executor: Executor,
    progress: Progress,
    iteration: int,
    records: list[CandidateRecord],
) -> list[Rung]:
    """Run successive halving over an iteration's designed (or, on resume, partly trained) candidates and write
    `iter_<i>/halving.json`; returns the rungs (none, and no file, when no candidate is left to train)."""
    fractions, why = rung_fractions(config, spec)
    budgets = rung_budgets(config.timesteps, fractions, first_rung_minimum(spec, explicit=config.rungs is not None))
    rows: list[dict] = []
    path = folder.path / iter_dir_name(iteration) / HALVING_FILE
    if why is not None:
        where = path.relative_to(folder.path).as_posix()
        progress.log(f"iteration {iteration}: {why.brief(budgets[0] if budgets else None, config.timesteps, where)}")
    blind = blind_first_cut(spec, budgets[0], why) if config.screen and budgets else None
    if blind:
        progress.log(f"iteration {iteration}: {blind}")
    first_cut_screen = blind or ("on" if config.screen else "off (--no-screen)")

    def record_rung(rung: Rung) -> None:
        rows.append(rung.as_dict())
        write_json_atomic(
            path,
            {
                "budgets": budgets,
                "first_rung": why.as_dict() if why is not None else None,
                "first_cut_screen": first_cut_screen,
                "keep": config.keep,
                "stop_flat": config.stop_flat,
                "rungs": rows,
            },
        )
        folder.event(
            Event.RUNG_DONE,
            iteration=iteration,
            rung=rung.index,
            timesteps=rung.timesteps,
            promoted=rung.promoted,
            stopped=rung.stopped,
            steps=rung.steps,
            repeated=rung.repeated,
            repeat_steps=rung.repeat_steps,
            revived=rung.revived,
        )
        progress.log(
            f"iteration {iteration} rung {rung.index} ({rung.timesteps:,} steps): "
            + (f"{', '.join(going_on(rung, cid) for cid in rung.promoted)} go on" if rung.promoted else "done")
            + (f"; stopped {', '.join(f'{k} ({v})' for k, v in rung.stopped.items())}" if rung.stopped else "")
            + (f"; {rung.revived} trained on to compare with the lone survivor" if rung.revived else "")
        )

    evidence = load_evidence(folder, spec)
    lcb = rule_for(config) == "lcb"
    todo = [r for r in records if r.status == "designed" or (r.status == "trained" and r.iteration == iteration)]
    if not todo:
        return []  # every candidate was rejected: no rung to run, and none to report as done
    return successive_halving(
        todo,
        rung_trainer(folder, config, spec, executor, progress),
        budgets,
        keep=config.keep,
        stop_flat=config.stop_flat,
        parallel=executor.workers,
        screen=rung_screener(folder, spec, executor, progress, iteration) if config.screen and not blind else None,
        on_rung=record_rung,
        evidence=evidence if lcb else None,
        repeat=rung_repeater(folder, config, spec, executor, progress, evidence) if lcb else None,
        finalist_seeds=config.finalist_seeds,
    )
