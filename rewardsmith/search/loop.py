"""The search loop: one run from its start to its end. Each iteration is one route for its candidates: the design
round (`design_round`: design K candidates, critique and repair them), successive halving (`halving`: train the
designed ones, spending the budget where it matters), the analysis round (`analysis_round`); the best so far is
kept (Eureka's greedy elitism), and after the last iteration the best is retrained on several seeds (`final`).

The loop is a function of (config, run folder contents) at candidate granularity: each step first looks
at what the folder already holds and skips finished work, so `resume` is just running it again. LLM
calls of a cut-short step replay from the run's own cache (`llm/cache/`), so nothing is paid twice. The
folder layout is documented in `rewardsmith.run_folder.folder`.
"""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path

from rewardsmith.config import ResolvedConfig, RunConfig
from rewardsmith.errors import RewardsmithError, RunFolderError
from rewardsmith.llm import default_model_name, get_model
from rewardsmith.reward.task_check import validate_task
from rewardsmith.run_folder.claim import claim_dir, new_run_dir
from rewardsmith.run_folder.folder import RunFolder
from rewardsmith.run_folder.names import Event
from rewardsmith.run_folder.records import CandidateRecord
from rewardsmith.sandbox.interrupt import interruptible
from rewardsmith.search.analysis_round import analyse_if_missing, analysis_round
from rewardsmith.search.design_round import DEDUPE, design_round
from rewardsmith.search.evidence import load_evidence
from rewardsmith.search.final import retrain_best, write_summary
from rewardsmith.search.live import Progress, make_progress
from rewardsmith.search.rungs import halve_iteration
from rewardsmith.search.selection import best_record, rule_for
from rewardsmith.search.session import Search, update_best, usage
from rewardsmith.settings import require_sandbox
from rewardsmith.stages.designer import Designer, Failure
from rewardsmith.stages.env_description import description_for_run
from rewardsmith.stages.human_feedback import check_option
from rewardsmith.stages.human_feedback import collect as collect_feedback
from rewardsmith.stages.video import VideoError, find_video, record_video
from rewardsmith.stages.visual_feedback import vision_refusal
from rewardsmith.task import TaskSpec, load_task
from rewardsmith.workers.backends import check_training_settings
from rewardsmith.workers.executor import Executor, make_executor
from rewardsmith.workers.run import stop_workers_under


def run(config: RunConfig, progress: Progress | None = None, executor: Executor | None = None) -> RunFolder:
    """Start a new run in a fresh folder and carry it to the end; returns the folder. A given `executor`
    (shared by a batch) is used and left running; otherwise the run makes its own local one."""
    spec = load_task(config.task)
    config = config.resolve(spec)
    require_sandbox(config.sandbox_minimum)  # refuse before anything is created
    check_option(config.feedback)
    if config.feedback not in (None, "ask"):  # a resume from another folder still finds the file
        config = config.model_copy(update={"feedback": str(Path(str(config.feedback)).resolve())})
    # a task error (bad scorer, env, a replay buffer too big for the run's longest training, settings the learner
    # refuses) raises here: before any folder or LLM call
    for warning in validate_task(spec):
        print(f"warning: {warning}", file=sys.stderr)
    check_training_settings(
        spec, max(config.timesteps or 0, (config.final_timesteps or 0) if config.final_seeds else 0)
    )
    note = spec.calibration_note(config.timesteps)
    if note:
        print(f"note: {note}", file=sys.stderr)
    rollout = spec.train.ppo_rollout()
    if rollout and config.timesteps < rollout:
        print(
            f"note: {config.timesteps:,} steps is less than one PPO rollout ({spec.train.n_envs} envs x"
            f" {rollout // spec.train.n_envs:,} steps): each training runs {rollout:,}",
            file=sys.stderr,
        )
    path = claim_dir(config.out) if config.out else new_run_dir(None, spec.name)
    config = config.model_copy(update={"model": config.model or default_model_name()})
    folder = RunFolder.create(path, config, spec, config.model or "")
    folder.event(Event.RUN_STARTED, task=spec.name, model=config.model, run_dir=str(path), pid=os.getpid())
    return _execute(folder, progress, executor)


def resume(run_dir: Path, progress: Progress | None = None, executor: Executor | None = None) -> RunFolder:
    """Continue a killed, interrupted or failed run from its folder; a finished run is left as it is."""
    folder = RunFolder(Path(run_dir))
    folder.run_info()
    status = folder.status()
    if status == "running":
        raise RunFolderError(f"{run_dir}: run is still running (pid {folder.lock_pid()})")
    if status == "finished":
        return folder
    require_sandbox(folder.config().sandbox_minimum)
    check_option(folder.config().feedback)
    stopped = stop_workers_under(folder.path)
    folder.event(Event.RUN_RESUMED, pid=os.getpid(), previous_status=status, stopped_workers=stopped)
    return _execute(folder, progress, executor)


def _execute(folder: RunFolder, progress: Progress | None, shared: Executor | None = None) -> RunFolder:
    folder.acquire()
    progress = progress or make_progress()
    spec = folder.spec()
    config = folder.config().resolve(spec)  # a run.json written before budgets were resolved kept None
    executor = shared or make_executor("local", config.workers)
    events = folder.events()
    started = events[0]["t"] if events else time.time()
    progress.start()
    try:
        with interruptible(lambda signum: _interrupted(folder, config, spec, started, signum)):
            model = get_model(config.model, api_base=config.api_base, run_dir=folder.path, use_cache=config.use_cache)
            if config.visual_feedback and (why := vision_refusal(model)):
                print(f"note: --visual-feedback sends no frames in this run: {why}", file=sys.stderr)
            description = description_for_run(spec)
            designer = Designer(
                model,
                spec,
                description,
                temperature=config.temperature,
                max_tokens=config.max_tokens,
                progress=config.progress_bonus > 0,
            )
            search = Search(folder, config, spec, model, description, designer, executor, progress)
            progress.status(**usage(search))
            for iteration in range(1, config.iterations + 1):
                run_iteration(search, iteration)
                if config.feedback and iteration < config.iterations:
                    ask_user(search, iteration)
            final = retrain_best(folder, config, executor, progress)
            record_videos(search)
            summary = write_summary(folder, config, spec, "finished", started=started, final=final)
            folder.event(
                Event.RUN_FINISHED, best_candidate=summary["best_candidate"], best_fitness=summary["best_fitness"]
            )
    except RewardsmithError as e:
        write_summary(folder, config, spec, "failed", started=started, error=str(e))
        folder.event(Event.RUN_FAILED, error=str(e))
        raise
    finally:
        progress.stop()
        if shared is None:
            executor.shutdown()
        folder.release()
    return folder


def _interrupted(folder: RunFolder, config: ResolvedConfig, spec: TaskSpec, started: float, signum: int) -> None:
    """SIGINT/SIGTERM: stop the run's workers, record the run as interrupted and say how to resume."""
    name = signal.Signals(signum).name
    stopped = stop_workers_under(folder.path)
    folder.event(Event.RUN_INTERRUPTED, signal=name, stopped_workers=stopped)
    write_summary(folder, config, spec, "interrupted", started=started, error=f"stopped by {name}")
    folder.release()
    print(
        f"{name}: the run was stopped and marked interrupted; resume it with `rewardsmith resume {folder.path}`",
        file=sys.stderr,
        flush=True,
    )


def record_videos(s: Search) -> None:
    """Policy videos: always of the overall best candidate; with `videos`, of each iteration's best too."""
    records, rule, evidence = s.folder.candidates(), rule_for(s.config), load_evidence(s.folder, s.spec)
    targets = [best_record(records, rule=rule, evidence=evidence)]
    if s.config.videos:
        targets += [
            best_record([r for r in records if r.iteration == i], rule=rule)
            for i in sorted({r.iteration for r in records})
        ]
    for record in {r.id: r for r in targets if r is not None}.values():
        cand = s.folder.cand_dir(record.iteration, record.index)
        if find_video(cand) is None:  # verified: a video the parent did not record is made again
            s.progress.update(record.id, "video")
            try:
                record_video(s.spec, cand, executor=s.executor, seed=s.config.seed)
            except VideoError as e:  # one line: why, and what to do
                s.progress.update(record.id, "no video", reason=str(e).removeprefix("no video: "))
            else:
                s.progress.update(record.id, "video recorded")


# -- one iteration ---------------------------------------------------------------------------------------


def run_iteration(s: Search, iteration: int) -> None:
    """One iteration's route: design round, halving, analysis round; the round is asked again (with the errors
    as feedback) while none of its candidates could be trained, up to `iteration_retries` times (`give_up`)."""
    if any(e.get("event") == Event.ITERATION_DONE and e.get("iteration") == iteration for e in s.folder.events()):
        for record in (r for r in s.folder.candidates() if r.iteration == iteration):
            analyse_if_missing(s, s.folder.cand_of(record), record)  # a resume removed an unproven analysis
        return
    k = s.config.samples
    best = best_record(
        s.folder.candidates(), before=iteration, rule=rule_for(s.config), evidence=load_evidence(s.folder, s.spec)
    )
    s.folder.event(Event.ITERATION_STARTED, iteration=iteration, parent=best.id if best else None)
    s.progress.status(iteration=iteration)
    failures: list[Failure] = []
    for attempt in range(s.config.iteration_retries + 1):
        cands = [s.folder.cand(iteration, j) for j in range(attempt * k + 1, attempt * k + k + 1)]
        designed = design_round(s, cands, best, failures)
        halve_iteration(s.folder, s.config, s.spec, s.executor, s.progress, iteration, designed)
        update_best(s)
        records = analysis_round(s, cands)
        if any(r.status == "trained" for r in records):
            break
        failures = [Failure(r.id, r.reason) for r in records]
        if give_up(s, iteration, attempt, best, failures):
            break
    top = best_record(
        s.folder.candidates(), before=iteration + 1, rule=rule_for(s.config), evidence=load_evidence(s.folder, s.spec)
    )
    s.folder.event(
        Event.ITERATION_DONE,
        iteration=iteration,
        best_candidate=top.id if top else None,
        best_fitness=top.fitness if top else None,
    )


def give_up(s: Search, iteration: int, attempt: int, best: CandidateRecord | None, failures: list[Failure]) -> bool:
    """After a round without any trained candidate: True when the iteration stops here, recorded as unproductive
    (the retries are spent, or every candidate repeated an earlier one, and there is a best so far to keep);
    False when the round is asked again. A first iteration whose retries are spent stops the run with the errors."""
    last = attempt == s.config.iteration_retries
    repeated = best is not None and all(f.reason.startswith(DEDUPE) for f in failures)
    retries = f"{attempt} retr{'y' if attempt == 1 else 'ies'}"
    errors = [f"{f.id}: {f.reason[:200]}" for f in failures]
    if best is not None and (last or repeated):
        s.progress.log(
            f"iteration {iteration}: every candidate repeated an earlier one, so the round is not asked again; "
            f"keeping the best so far ({best.id})"
            if repeated
            else f"iteration {iteration}: no new candidate could be trained after {retries}; "
            f"keeping the best so far ({best.id})"
        )
        s.folder.event(Event.ITERATION_UNPRODUCTIVE, iteration=iteration, errors=errors)
        return True
    if last:
        raise RewardsmithError(
            f"iteration {iteration}: none of the {len(failures) * (attempt + 1)} candidates could be trained "
            f"after {retries}; last errors: " + "; ".join(errors) + f". See {s.folder.path}/iter_{iteration}/ and "
            "try another model or more --repair-rounds"
        )
    s.progress.log(f"iteration {iteration}: no candidate could be trained; retrying with the errors as feedback")
    return False


def ask_user(s: Search, iteration: int) -> None:
    """`--feedback`: the user's answer after `iteration` (asked in the terminal with the live view paused, or read
    from the file; replayed on resume), recorded for the next prompts."""
    assert s.config.feedback is not None
    if s.config.feedback == "ask":
        s.progress.stop()
    try:
        answer = collect_feedback(s.folder, s.config.feedback, iteration)
    finally:
        if s.config.feedback == "ask":
            s.progress.start()
    said = "no feedback" if answer.empty else f"feedback after iteration {iteration} recorded ({answer.source})"
    s.progress.log(said)
