"""The search loop: design K candidates, critique and repair them, train the survivors, analyse them, keep the
best (Eureka's greedy elitism), and after the last iteration retrain the best on several seeds.

The loop is a function of (config, run folder contents) at candidate granularity: each step first looks
at what the folder already holds and skips finished work, so `resume` is just running it again. LLM
calls of a cut-short step replay from the run's own cache (`llm/cache/`), so nothing is paid twice. The
folder layout is documented in `rewardsmith.run_folder.folder`.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rewardsmith.config import RunConfig
from rewardsmith.errors import RewardsmithError, RunFolderError
from rewardsmith.files import read_json, write_json_atomic
from rewardsmith.llm import Model, default_model_name, get_model
from rewardsmith.reward.task_check import validate_task
from rewardsmith.run_folder.claim import claim_dir, new_run_dir
from rewardsmith.run_folder.folder import RunFolder
from rewardsmith.run_folder.names import REWARD_FILE, SCREEN_FILE
from rewardsmith.run_folder.records import CandidateRecord
from rewardsmith.sandbox.interrupt import interruptible
from rewardsmith.search.final import retrain_best, write_summary
from rewardsmith.search.halving import halve_iteration
from rewardsmith.search.progress import Progress, ReplyClock, ReplyTicker, make_progress
from rewardsmith.search.selection import best_record, ranked, rule_for
from rewardsmith.search.training import (
    record_training,
    reward_budget,
    screen_archives,
    train_and_evaluate,
    warm_start,
)
from rewardsmith.settings import require_sandbox
from rewardsmith.stages.analyzer import analyze
from rewardsmith.stages.critic import critique
from rewardsmith.stages.designer import Design, Designer, Failure, is_duplicate
from rewardsmith.stages.env_description import describe
from rewardsmith.stages.history import best_for_prompt, candidate_code, prompt_inputs
from rewardsmith.stages.human_feedback import check_option
from rewardsmith.stages.human_feedback import collect as collect_feedback
from rewardsmith.stages.screen import ScreenReport, screen
from rewardsmith.task import TaskSpec, load_task
from rewardsmith.workers.executor import Executor, make_executor
from rewardsmith.workers.run import stop_workers_under

DEDUPE = "[dedupe]"
"""The reason of a candidate whose code repeats an earlier one; a round of only these is not retried (the same
prompt would bring the same code again: the built-in local model's template does, and the quick start paid
minutes for it)."""


@dataclass
class Search:
    """Everything one run of the loop holds while it runs."""

    folder: RunFolder
    config: RunConfig
    spec: TaskSpec
    model: Model
    designer: Designer
    executor: Executor
    progress: Progress
    best_lock: threading.Lock = field(default_factory=threading.Lock)
    archive_lock: threading.Lock = field(default_factory=threading.Lock)
    replies: ReplyClock = field(default_factory=ReplyClock)
    """How long this run's LLM replies take: the ETA of the ones in flight."""


def run(config: RunConfig, progress: Progress | None = None, executor: Executor | None = None) -> RunFolder:
    """Start a new run in a fresh folder and carry it to the end; returns the folder. A given `executor`
    (shared by a batch) is used and left running; otherwise the run makes its own local one."""
    spec = load_task(config.task)
    config = config.resolve(spec)
    require_sandbox(config.sandbox_minimum)  # refuse before anything is created
    check_option(config.feedback)
    if config.feedback not in (None, "ask"):  # a resume from another folder still finds the file
        config = config.model_copy(update={"feedback": str(Path(str(config.feedback)).resolve())})
    for warning in validate_task(spec):  # a task error (bad scorer, env) raises here: before any folder or LLM call
        print(f"warning: {warning}", file=sys.stderr)
    path = claim_dir(config.out) if config.out else new_run_dir(None, spec.name)
    config = config.model_copy(update={"model": config.model or default_model_name()})
    folder = RunFolder.create(path, config, spec, config.model or "")
    folder.event("run_started", task=spec.name, model=config.model, run_dir=str(path), pid=os.getpid())
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
    folder.event("run_resumed", pid=os.getpid(), previous_status=status, stopped_workers=stopped)
    return _execute(folder, progress, executor)


def _execute(folder: RunFolder, progress: Progress | None, shared: Executor | None = None) -> RunFolder:
    folder.acquire()
    progress = progress or make_progress()
    config, spec = folder.config(), folder.spec()
    executor = shared or make_executor("local", config.workers)
    events = folder.events()
    started = events[0]["t"] if events else time.time()
    progress.start()
    try:
        with interruptible(lambda signum: _interrupted(folder, config, spec, started, signum)):
            model = get_model(config.model, api_base=config.api_base, run_dir=folder.path, use_cache=config.use_cache)
            designer = Designer(
                model,
                spec,
                describe(spec),
                temperature=config.temperature,
                max_tokens=config.max_tokens,
                progress=config.progress_bonus > 0,
            )
            search = Search(folder, config, spec, model, designer, executor, progress)
            progress.status(**usage(search))
            for iteration in range(1, (config.iterations or 1) + 1):
                run_iteration(search, iteration)
                if config.feedback and iteration < (config.iterations or 1):
                    ask_user(search, iteration)
            final = retrain_best(folder, config, executor, progress)
            record_videos(search)
            summary = write_summary(folder, config, spec, "finished", started=started, final=final)
            folder.event("run_finished", best_candidate=summary["best_candidate"], best_fitness=summary["best_fitness"])
    except RewardsmithError as e:
        write_summary(folder, config, spec, "failed", started=started, error=str(e))
        folder.event("run_failed", error=str(e))
        raise
    finally:
        progress.stop()
        if shared is None:
            executor.shutdown()
        folder.release()
    return folder


def _interrupted(folder: RunFolder, config: RunConfig, spec: TaskSpec, started: float, signum: int) -> None:
    """SIGINT/SIGTERM: stop the run's workers, record the run as interrupted and say how to resume."""
    name = signal.Signals(signum).name
    stopped = stop_workers_under(folder.path)
    folder.event("run_interrupted", signal=name, stopped_workers=stopped)
    write_summary(folder, config, spec, "interrupted", started=started, error=f"stopped by {name}")
    folder.release()
    print(
        f"{name}: the run was stopped and marked interrupted; resume it with `rewardsmith resume {folder.path}`",
        file=sys.stderr,
        flush=True,
    )


def record_videos(s: Search) -> None:
    """Policy videos: always of the overall best candidate; with `videos`, of each iteration's best too."""
    from rewardsmith.stages.video import find_video, record_video

    records, rule = s.folder.candidates(), rule_for(s.config)
    targets = [best_record(records, rule=rule)]
    if s.config.videos:
        targets += [
            best_record([r for r in records if r.iteration == i], rule=rule)
            for i in sorted({r.iteration for r in records})
        ]
    for record in {r.id: r for r in targets if r is not None}.values():
        cand = s.folder.cand_dir(record.iteration, record.index)
        if find_video(cand) is None:  # verified: a video the parent did not record is made again
            s.progress.update(record.id, "video")
            video = record_video(s.spec, cand, executor=s.executor, seed=s.config.seed)
            s.progress.update(
                record.id,
                "video recorded" if video else "no video",
                reason="" if video else "rendering failed (see video/worker.log)",
            )


# -- one iteration ---------------------------------------------------------------------------------------


def run_iteration(s: Search, iteration: int) -> None:
    """Design, check, train and analyse one iteration's candidates; retry the round if none could be trained.

    After the bounded retries, a first iteration without any trained candidate stops the run with the errors;
    a later one is recorded as unproductive and the search goes on with the best so far.
    """
    if any(e.get("event") == "iteration_done" and e.get("iteration") == iteration for e in s.folder.events()):
        for record in (r for r in s.folder.candidates() if r.iteration == iteration):
            analyse_if_missing(s, record)  # a resume removed an analysis without the parent's proof
        return
    k = s.config.samples or 1
    best = best_record(s.folder.candidates(), before=iteration, rule=rule_for(s.config))
    s.folder.event("iteration_started", iteration=iteration, parent=best.id if best else None)
    s.progress.status(iteration=iteration)
    failures: list[Failure] = []
    pair = crossover_pair(s.folder, iteration, s.config) if s.config.crossover and k >= 2 else None
    for attempt in range(s.config.iteration_retries + 1):
        indices = list(range(attempt * k + 1, attempt * k + k + 1))
        messages = s.designer.prompt(
            **prompt_inputs(s.folder, iteration, best, best_only=s.config.strategy == "eureka"),  # Eureka: best only
            failures=failures,
        )
        crossed = indices[-1] if pair else None  # the round's last sample combines the two best so far
        parents = {j: best.id if best else None for j in indices}
        pending = [j for j in indices if s.folder.candidate(iteration, j) is None]
        for j in pending:
            s.progress.update(f"{iteration}.{j}", "designing")
        regular = [j for j in pending if j != crossed]
        designs = dict(zip(regular, ask_designer(s, iteration, messages, regular), strict=True))
        if pair and crossed is not None:
            parents[crossed] = "+".join(r.id for r in pair)
            if crossed in pending:
                s.folder.event("crossover_requested", candidate=f"{iteration}.{crossed}", parents=[r.id for r in pair])
                first, second = (best_for_prompt(s.folder, r) for r in pair)
                assert first is not None and second is not None
                designs[crossed] = ask_designer(s, iteration, s.designer.crossover(first, second), [crossed])[0]
        duplicates = find_duplicates(s.folder, iteration, designs)
        design_then_halve(s, iteration, indices, designs, duplicates, parents)
        with ThreadPoolExecutor(max_workers=k, thread_name_prefix="candidate") as pool:
            records = list(
                pool.map(
                    lambda j, designs=designs, duplicates=duplicates, parents=parents: candidate_pipeline(
                        s, iteration, j, designs.get(j), duplicates.get(j), parents[j]
                    ),
                    indices,
                )
            )
        if any(r.status == "trained" for r in records):
            break
        failures = [Failure(r.id, r.reason) for r in records]
        repeated = best is not None and all(r.reason.startswith(DEDUPE) for r in records)
        if (attempt == s.config.iteration_retries or repeated) and best is not None:
            s.progress.log(
                f"iteration {iteration}: every candidate repeated an earlier one, so the round is not asked again; "
                f"keeping the best so far ({best.id})"
                if repeated
                else f"iteration {iteration}: no new candidate could be trained after {attempt} "
                f"retr{'y' if attempt == 1 else 'ies'}; keeping the best so far ({best.id})"
            )
            s.folder.event(
                "iteration_unproductive", iteration=iteration, errors=[f"{f.id}: {f.reason[:200]}" for f in failures]
            )
            break
        if attempt == s.config.iteration_retries:
            raise RewardsmithError(
                f"iteration {iteration}: none of the {len(records) * (attempt + 1)} candidates could be trained "
                f"after {attempt} retr{'y' if attempt == 1 else 'ies'}; last errors: "
                + "; ".join(f"{f.id}: {f.reason[:200]}" for f in failures)
                + f". See {s.folder.path}/iter_{iteration}/ and try another model or more --repair-rounds"
            )
        s.progress.log(f"iteration {iteration}: no candidate could be trained; retrying with the errors as feedback")
    top = best_record(s.folder.candidates(), before=iteration + 1, rule=rule_for(s.config))
    s.folder.event(
        "iteration_done",
        iteration=iteration,
        best_candidate=top.id if top else None,
        best_fitness=top.fitness if top else None,
    )


def design_then_halve(
    s: Search,
    iteration: int,
    indices: list[int],
    designs: dict[int, Design],
    duplicates: dict[int, str],
    parents: dict[int, str | None],
) -> None:
    """Design (and check) every candidate of the round in parallel, then train the accepted ones by successive
    halving (`rewardsmith.search.halving`; with a single rung, as under `--strategy eureka` or a budget too small
    to split, every one trains once at the full budget); the analysis follows in `candidate_pipeline`."""

    def design(j: int) -> CandidateRecord:
        record = s.folder.candidate(iteration, j)
        return record or design_candidate(s, iteration, j, designs[j], duplicates.get(j), parents[j])

    with ThreadPoolExecutor(max_workers=len(indices), thread_name_prefix="candidate") as pool:
        records = list(pool.map(design, indices))
    halve_iteration(s.folder, s.config, s.spec, s.executor, s.progress, iteration, records)
    update_best(s)


def crossover_pair(
    folder: RunFolder, iteration: int, config: RunConfig
) -> tuple[CandidateRecord, CandidateRecord] | None:
    """`--crossover`: the two best trained candidates before `iteration` by the run's selection rule, with
    different code (REvolve's parents), or None when there are not two."""
    order = ranked(folder.candidates(), before=iteration, rule=rule_for(config))
    if not order:
        return None
    first = order[0]
    code = candidate_code(folder, first)
    second = next((r for r in order[1:] if not is_duplicate(candidate_code(folder, r), [code])), None)
    return (first, second) if second is not None else None


def update_best(s: Search) -> None:
    """Copy the best candidate so far (by the run's selection rule) to best/ when it changed, and show it."""
    with s.best_lock:
        top = best_record(s.folder.candidates(), rule=rule_for(s.config))
        if top is not None and top.id != s.folder.best_id():
            s.folder.save_best(top)
            s.progress.log(f"new best: {top.id} with fitness {top.fitness:.4g}")
        if top is not None:
            s.progress.status(best_candidate=top.id, best_fitness=top.fitness)


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


def ask_designer(s: Search, iteration: int, messages: list[dict[str, str]], indices: list[int]) -> list[Design]:
    """One designer reply per candidate index, with each waiting candidate's elapsed time and ETA shown."""
    ids = {sample_number(iteration, j): f"{iteration}.{j}" for j in indices}
    with ReplyTicker(s.progress, s.replies, list(ids.values())) as ticker:
        return s.designer.sample(
            messages, list(ids), on_done=lambda k, design: ticker.arrived(ids[k], design.latency_s, design.cached)
        )


def sample_number(iteration: int, index: int) -> int:
    """A run-unique sample number per candidate: seeds the local model and keeps cache keys apart."""
    return iteration * 1000 + index - 1


def find_duplicates(folder: RunFolder, iteration: int, designs: dict[int, Design]) -> dict[int, str]:
    """Index -> id of an earlier candidate with the same code (up to whitespace and comments)."""
    known = [(r.id, candidate_code(folder, r)) for r in folder.candidates() if r.status != "rejected"]
    found: dict[int, str] = {}
    for j, design in designs.items():
        if design.code is None:
            continue
        twin = next((cid for cid, code in known if is_duplicate(design.code, [code])), None)
        if twin:
            found[j] = twin
        else:
            known.append((f"{iteration}.{j}", design.code))
    return found


def candidate_pipeline(
    s: Search, iteration: int, index: int, design: Design | None, duplicate_of: str | None, parent: str | None
) -> CandidateRecord:
    """Take one candidate as far as it goes: design (with repairs), training, analysis; skips finished steps."""
    record = s.folder.candidate(iteration, index)
    if record is None:
        assert design is not None
        record = design_candidate(s, iteration, index, design, duplicate_of, parent)
    if record.status == "designed":
        record = train_candidate(s, record)
    analyse_if_missing(s, record)
    if record.status == "trained":
        s.progress.update(record.id, "analysed", fitness=record.fitness)
    else:
        s.progress.update(record.id, record.status, reason=record.reason[:100])
    return record


def analyse_if_missing(s: Search, record: CandidateRecord) -> None:
    """Analyse a trained candidate unless the parent's own analysis is on record (`RunFolder.analysis` reads it only
    with its proof, so a planted analysis.json counts as missing and is made again)."""
    if record.status == "trained" and s.folder.analysis(record) is None:
        cand = s.folder.cand_dir(record.iteration, record.index)
        analysis = analyze(s.spec, cand, model=s.model, llm_summary=s.config.llm_summary)
        s.folder.event("analysis_done", candidate=record.id, flags=[f.get("code") for f in analysis.get("flags", [])])


def design_candidate(
    s: Search, iteration: int, index: int, design: Design, duplicate_of: str | None, parent: str | None
) -> CandidateRecord:
    """Check the design and ask for repairs with the exact findings, up to `repair_rounds`; save every attempt."""
    started, cid = time.time(), f"{iteration}.{index}"
    folder = s.folder.cand_dir(iteration, index)
    folder.mkdir(parents=True, exist_ok=True)
    record = CandidateRecord(
        id=cid,
        iteration=iteration,
        index=index,
        parent=parent,
        status="rejected",
        tokens=design.tokens,
        cost_usd=design.cost_usd,
    )
    attempts: list[dict] = []
    problems = ""  # the findings of the last attempt, sent back with the next repair request
    for n in range((s.config.repair_rounds or 0) + 1 if duplicate_of is None else 1):
        if n:
            record.repair_rounds = n
            s.folder.event("repair_requested", candidate=cid, attempt=n, findings=attempts[-1]["findings"])
            s.progress.update(cid, f"repair {n}")
            with ReplyTicker(s.progress, s.replies, [cid], state=f"repair {n}") as ticker:
                design = s.designer.repair(design, problems, sample=sample_number(iteration, index))
                ticker.arrived(cid, design.latency_s, design.cached)
            record.tokens += design.tokens
            record.cost_usd += design.cost_usd
        entry: dict[str, Any] = {
            "attempt": n,
            "file": None,
            "accepted": False,
            "findings": [],
            "tokens": design.tokens,
            "cost_usd": design.cost_usd,
        }
        if design.code is None:
            (folder / f"attempt_{n}.reply.md").write_text(design.text, encoding="utf-8")
            entry.update(file=f"attempt_{n}.reply.md", findings=[f"[extract] {design.error}"])
            problems = f"No usable reward code could be taken from your reply: {design.error}"
        elif duplicate_of is not None:
            (folder / f"attempt_{n}.py").write_text(design.code, encoding="utf-8")
            entry.update(file=f"attempt_{n}.py", findings=[f"{DEDUPE} same code as candidate {duplicate_of}"])
        else:
            (folder / f"attempt_{n}.py").write_text(design.code, encoding="utf-8")
            s.progress.update(cid, "critic")
            report = critique(
                s.spec,
                folder / f"attempt_{n}.py",
                folder,
                model=s.model,
                semantic=s.config.semantic,
                executor=s.executor,
                options=s.config.job_options() or None,
            )
            (folder / f"attempt_{n}.critic.json").write_bytes((folder / "critic.json").read_bytes())
            record.tokens += report.tokens
            record.cost_usd += report.cost_usd
            entry.update(
                file=f"attempt_{n}.py",
                accepted=report.accepted,
                findings=[str(f) for f in report.findings],
                tokens=design.tokens + report.tokens,
            )
            problems = report.repair_text()
            s.folder.event(
                "critic_done",
                candidate=cid,
                attempt=n,
                accepted=report.accepted,
                findings=[str(f) for f in report.errors],
            )
            verdict = screen_candidate(s, iteration, folder, n, cid) if report.accepted and s.config.screen else None
            if verdict is not None and not verdict.passed:
                entry.update(accepted=False, findings=[verdict.finding(), *entry["findings"]])
                problems = verdict.repair_text() + ("\n\n" + problems if report.findings else "")
        attempts.append(entry)
        write_json_atomic(folder / "attempts.json", attempts)
        if entry["accepted"]:
            s.folder.cand(iteration, index).write_reward(design.code or "", parent=parent, model=s.model.name)
            record.status = "designed"
            break
    if record.status == "rejected":
        record.reason = attempts[-1]["findings"][0] if attempts[-1]["findings"] else "rejected by the critic"
    record.cost_usd = round(record.cost_usd, 6)
    record.wall_s = round(time.time() - started, 3)
    s.folder.save_candidate(record)
    s.folder.event(
        "candidate_designed",
        candidate=cid,
        status=record.status,
        reason=record.reason,
        repair_rounds=record.repair_rounds,
        tokens=record.tokens,
    )
    s.progress.status(**usage(s))
    return record


def screen_candidate(s: Search, iteration: int, folder: Path, attempt: int, cid: str) -> ScreenReport | None:
    """From iteration 2 on, screen a critic-accepted attempt on the earlier iterations' archived trajectories and
    the run's random-policy episodes (`rewardsmith.stages.screen`); its verdict is kept as
    `attempt_<n>.screen.json`. None in iteration 1."""
    if iteration < 2:
        return None
    s.progress.update(cid, "screen")
    # one random-policy evaluation per run, whichever candidate asks first
    archives = screen_archives(s.folder, s.spec, s.executor, before_iteration=iteration, lock=s.archive_lock)
    verdict = screen(s.spec, folder / f"attempt_{attempt}.py", folder, archives, executor=s.executor)
    (folder / f"attempt_{attempt}.screen.json").write_bytes((folder / SCREEN_FILE).read_bytes())
    s.folder.event(
        "screen_done",
        candidate=cid,
        attempt=attempt,
        **verdict.verdict(),
    )
    return verdict


def train_candidate(s: Search, record: CandidateRecord) -> CandidateRecord:
    """Train a designed candidate with the search budget and measure it with the evaluation worker
    (`rewardsmith.search.training`). Nothing a killed run's workers left in the folder is read back: a
    candidate the parent did not record as trained is trained and evaluated again."""
    folder = s.folder.cand_dir(record.iteration, record.index)
    warm = warm_start(s.folder, record) if s.config.warm_start else None
    s.folder.event(
        "training_started",
        candidate=record.id,
        timesteps=s.config.timesteps,
        **({"warm_start_from": record.parent} if warm else {}),
    )
    s.progress.update(record.id, "training", done=0, total=s.config.timesteps)
    result, evaluation = train_and_evaluate(
        s.spec.source,
        folder / REWARD_FILE,
        folder,
        timesteps=s.config.timesteps or s.spec.train.timesteps,
        seed=s.config.seed,
        eval_episodes=s.spec.train.eval_episodes,
        executor=s.executor,
        device=s.config.device,
        on_progress=lambda done, total: s.progress.update(record.id, "training", done=done, total=total),
        on_eval_progress=lambda done, total: s.progress.update(record.id, "evaluating", done=done, total=total),
        reward_budget_s=reward_budget((read_json(folder / "critic.json") or {}).get("stats")),
        continue_from=warm,
        options=s.config.job_options(),
    )
    record = record_training(s.folder, record, result, evaluation, s.config.timesteps or s.spec.train.timesteps)
    update_best(s)
    return record


# -- selection and prompts -----------------------------------------------------------------------------


def usage(s: Search) -> dict[str, float]:
    """Tokens and cost paid so far in this run (all sessions)."""
    totals = s.folder.llm_totals()
    return {"tokens": totals["tokens"], "cost_usd": totals["cost_usd"]}
