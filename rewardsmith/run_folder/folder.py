"""The run folder of `rewardsmith run`: what it holds, how it is written, and how its status is read back.

Layout of `runs/<task>/<stamp>/` (every JSON file is written atomically; `events.jsonl` is append-only). Every
name below is defined once in `rewardsmith.run_folder.names`; a test checks this text against them.

    run.json            run_id, task {name, path, spec}, model, api_base, config (RunConfig, resolved),
                        versions {rewardsmith, python, numpy, torch, stable-baselines3, gymnasium, mujoco,
                        litellm}, seed, started_at
    task.toml           copy of the task spec, with the trusted modules it names (e.g. scorers.py) beside
                        it; the run trains from this copy, so it stays reviewable and resumable
    events.jsonl        one JSON object per line: {"t": unix time, "event": name, ...fields}; events:
                        run_started, run_resumed, iteration_started, candidate_designed, critic_done,
                        repair_requested, training_started, training_done, analysis_done,
                        rung_done (successive halving), seed_repeated (a close candidate, or the last rung's
                        leader, trained on a second seed), iteration_done, final_started (with its announced
                        cost: steps, estimate_s, plan), search_signal (before the final: whether the top rung
                        carried signal, against the random policy and its peers), final_skipped (--final-seeds
                        0), final_seed_done, final_done, run_finished, run_failed;
                        with the screen (default strategy) also screen_done (with `attempt` before training,
                        with `rung: 1` at halving's first cut); also run_interrupted (SIGINT/SIGTERM),
                        iteration_unproductive, crossover_requested, random_policy_evaluated, search_signal
                        (whether the top rung carried signal, before the final retraining), human_feedback
                        (--feedback) and proofs_adopted (a folder from before proofs, resumed)
    .key                the run's secret for the parent's proofs (mode 600; no worker can read it)
    proofs.jsonl        {"path", "hmac"} per file the parent wrote or accepted: HMAC-SHA256 of its path and bytes
                        under .key (`rewardsmith.run_folder.proofs`); a parent-only file without a matching proof
                        is never read, and a resume removes it so it is made again
    run.lock            pid of the process running it (present only while it runs)
    .owner              written by `--out` folders (rewardsmith.run_folder.claim.claim_dir)
    llm/                NNNN_<role>.json per model call, cache/ (replayed on resume), scripted_state.json
    iter_<i>/halving.json  budgets, first_rung {fraction, how, family, why: the evidence behind the first rung's
                        length, rewardsmith.search.rung_evidence}, first_cut_screen ("on", "off (--no-screen)" or
                        why the calibration-blind gate kept it off), keep, stop_flat and per rung: steps spent,
                        each candidate's fitness, fitness_se,
                        timesteps, the first cut's screen verdict {passed, accuracy, spearman} and whether it
                        was promoted (or kept within noise of the cut line), halved, screened out, stopped on a
                        falling curve or failed; repeated_on_a_second_seed, repeat_steps, and revived (a candidate
                        stopped earlier, trained on to compare with a lone survivor at the last rung)
    seed_spread.json    {"repeats": [{candidate, budget, seeds, fitness, se, episodes}]}: close candidates trained again
                        on a second seed at a rung's budget; the between-seed floor of the selection, reused on
                        resume (`rewardsmith.search.spread`)
    iter_<i>/cand_<j>/  i, j from 1:
        attempt_<n>.py          code of attempt n (0 = first sample, n > 0 = repair n);
        attempt_<n>.reply.md    the raw reply when it held no usable code
        attempt_<n>.critic.json the critic's report on attempt n
        attempt_<n>.screen.json with the screen (default strategy), from iteration 2: its verdict on attempt n
                                (screen/ its worker's folder, screen_inputs/ the unlabelled episodes it judged)
        attempts.json           [{attempt, file, accepted, findings, tokens, cost_usd}]
        emphasis.json           {emphasis: minimal | staged | potential | null}: the design emphasis its sample
                                was asked for (none for sample 1 and the crossover)
        reward.py               the accepted code, with a header comment (id, iteration, parent, model)
        candidate.json          id "i.j", iteration, index, parent "i.j" | null,
                                status designed | rejected | trained | failed, reason, repair_rounds,
                                tokens, cost_usd, fitness, fitness_se, episodes, success_rate, wall_s,
                                timesteps (env steps behind fitness: the last rung reached), template
                                (what the reward is when the offline model's template, not a design)
                                (fitness, fitness_se, episodes, success_rate: from eval/evaluation.json)
        critic.json, critic/    the last critic report and its smoke worker's files
        screen.json, screen/    the last screen verdict and its worker's files (with the screen)
        rung_screen/            the same for the screen at halving's first cut (screen.json, screen/)
        job.json, metrics.jsonl, tb/, model.zip, policy.safetensors, summary.json, worker.log
                                the training worker's folder; it ran the reward, so only its weights
                                (policy.safetensors: tensors only) are used, and its metrics.jsonl is
                                shown as "reported by the training worker"
        eval/                   the evaluation worker's folder, emptied and made by the parent after
                                training ended: policy.safetensors (the parent's copy), evaluation.json
                                (per-episode fitness/success/length/end/seed on fresh seeds, mean, std,
                                standard error), eval_episodes.jsonl (with state statistics),
                                trajectories.npz (the screen's archive), summary.json, job.json, worker.log;
                                it never loads reward code, and every fitness that decides comes from it
        checkpoint.safetensors  the parent's copy of the policy weights at the end of the last rung; the next
                                rung (or the final retraining on the search seed) resumes from it
        second_seed/<budget>/   a repeat of the candidate's training on a second seed at a rung's budget (laid out
                                as its training folder, with its eval/); its numbers go to seed_spread.json
        third_seed/<budget>/    with --finalist-seeds 3: a last-rung finalist's training on a third seed, likewise
        warm_start.safetensors  with --warm-start: the parent's weights the first training starts from
        video.mp4 (video.gif)   the policy video the parent encoded from video/frames.npy (the render worker's)
        analysis.json           the analyzer's statistics, flags and feedback text
    best/reward.py, best/candidate.json   the best candidate so far (rewritten whenever it improves)
    final/reward.py, final/seed_<s>/      the best reward retrained with the full budget, one folder per seed
                                          (laid out as a candidate's training folder, with its eval/; a seed
                                          that reuses the search's own full-budget training holds only its
                                          weights and eval/, measured again); a seed counts as done only
                                          through its final_seed_done event
    random_policy/eval/                   with the screen: random-action episodes, evaluated once, in every screen
    report.html                           written by `rewardsmith report`
    summary.json        status, best_candidate, best_fitness, best_seeds (its fitness on each seed at its budget,
                        where a second seed was trained), best_success_rate, iterations, candidates,
                        tokens, cost_usd, llm_calls, cached_calls, final {reward, seeds: [{seed, fitness,
                        success_rate}], fitness_mean, fitness_std, success_mean} (null when skipped), human_normalized,
                        selection {rule, shorter, winner, runner_up, margin, noise, distinguishable, floor {sd, how,
                        pairs, budget, most_seeds}, tie_break, confidence {p_best, runner_up, peers, method}},
                        signal {verdict learned | nothing_learned | indistinguishable | unknown, message, budget,
                        suggested_budget, random_fitness, random_fitness_se}, templates {candidate id: what the
                        offline model's template is}, wall_s, error

Every worker's folder also holds job.json (what the parent asked), worker.log, heartbeat (progress while it runs),
error.json (when it failed), sandbox.json (the protections it ran under), ray.json (attempts on a Ray cluster),
replay.json (the replay worker's answer) and smoke.json (the critic's smoke test).
Parent-only files (`rewardsmith.run_folder.candidate.PARENT_ONLY`: the candidate's records, reward and attempt
files, analysis, video and the accepted eval/ results) are read only with their proof.

A batch folder (`rewardsmith batch`) holds batch.json, batch.lock while it runs, summary.json, batch_report.html
and one run folder per task (task_error.json in place of a run whose task could not start).

Status: "running" while `run.lock` names a live process, else "finished" or "failed" by the last
run_finished / run_failed event, else "interrupted" (resume it with `rewardsmith resume DIR`).
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import time
from importlib import metadata
from pathlib import Path
from typing import Any

from rewardsmith.config import RunConfig
from rewardsmith.errors import RunFolderError
from rewardsmith.files import append_jsonl, read_jsonl, remove_tree, write_bytes_atomic, write_json_atomic
from rewardsmith.run_folder.candidate import CandidateFolder
from rewardsmith.run_folder.names import (
    BEST_DIR,
    CANDIDATE_FILE,
    EVENTS_FILE,
    LLM_DIR,
    LOCK_FILE,
    REWARD_FILE,
    RUN_FILE,
    SUMMARY_FILE,
    TASK_FILE,
    Event,
    cand_dir_name,
)
from rewardsmith.run_folder.proofs import Proofs
from rewardsmith.run_folder.records import CandidateRecord, Evaluation, RunSummary, read_object, read_record
from rewardsmith.sandbox.proc import pid_alive
from rewardsmith.task import TaskSpec, read_task

MAX_RUN_FILE_BYTES = 64 * 2**20
"""run.json and LLM call logs hold whole prompts and replies."""
VERSIONED = ("rewardsmith", "numpy", "torch", "stable-baselines3", "gymnasium", "mujoco", "litellm")


def run_id(task: str, path: Path) -> str:
    """A run's name in reports and exports: `<task>-<folder>` (hopper-hop-20261207-145313-8e6930), or
    `<batch>/<task>` for a folder named after its task, as a batch names its runs."""
    return f"{path.parent.name}/{path.name}" if path.name == task else f"{task}-{path.name}"


def versions() -> dict[str, str | None]:
    """Versions of Python and the packages that decide a run's results."""
    found: dict[str, str | None] = {"python": platform.python_version()}
    for name in VERSIONED:
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            found[name] = None
    return found


class RunFolder:
    """Reads and writes one run folder (see the module docstring for its layout)."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.proofs = Proofs(self.path)

    @classmethod
    def create(cls, path: Path, config: RunConfig, spec: TaskSpec, model_name: str) -> RunFolder:
        """Fill a fresh folder: task.toml (and its trusted modules), run.json; returns the folder."""
        folder = cls(path)
        folder.proofs.create_key()
        if spec.source is None:
            raise RunFolderError(f"task '{spec.name}' has no spec file to copy into the run folder")
        shutil.copyfile(spec.source, folder.path / TASK_FILE)
        modules = {spec.fitness.scorer.split(":")[0]} | ({spec.env.split(":")[0]} if ":" in spec.env else set())
        for module in sorted(modules):
            relative = module.replace(".", "/") + ".py"
            (folder.path / relative).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(spec.folder / relative, folder.path / relative)
        write_json_atomic(
            folder.path / RUN_FILE,
            {
                "run_id": run_id(spec.name, folder.path),
                "task": {"name": spec.name, "path": str(spec.source), "spec": spec.source.read_text(encoding="utf-8")},
                "model": model_name,
                "api_base": config.api_base,
                "config": json.loads(config.model_dump_json()),
                "versions": versions(),
                "seed": config.seed,
                "started_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            },
        )
        return folder

    # -- run.json, task, events, lock --------------------------------------------------------------

    def run_info(self) -> dict[str, Any]:
        """The contents of run.json; RunFolderError if this is not a run folder."""
        info = read_object(self.path / RUN_FILE, max_bytes=MAX_RUN_FILE_BYTES)
        if info is None or "config" not in info:
            raise RunFolderError(f"{self.path}: not a run folder (no readable {RUN_FILE})")
        return info

    def config(self) -> RunConfig:
        """The resolved RunConfig the run was started with."""
        return RunConfig.model_validate(self.run_info()["config"])

    def spec(self) -> TaskSpec:
        """The task spec of the run, from its own copy."""
        return read_task(self.path / TASK_FILE)

    def event(self, name: Event, **fields: Any) -> None:
        """Append one event line."""
        append_jsonl(self.path / EVENTS_FILE, {"t": round(time.time(), 3), "event": str(name), **fields})

    def events(self) -> list[dict[str, Any]]:
        """All readable event lines, oldest first."""
        return self.read_events()[0]

    def read_events(self) -> tuple[list[dict[str, Any]], list[str]]:
        """All readable event lines, oldest first, and the lines that could not be read (the parent writes them,
        so the caps are wider than for a worker's output)."""
        path = self.path / EVENTS_FILE
        return read_jsonl(path, max_bytes=MAX_RUN_FILE_BYTES, max_lines=10**7, max_line_bytes=MAX_RUN_FILE_BYTES)

    def lock_pid(self) -> int | None:
        """The pid in run.lock, if any."""
        try:
            return int((self.path / LOCK_FILE).read_text().split()[0])
        except (OSError, ValueError, IndexError):
            return None

    def acquire(self) -> None:
        """Write run.lock with this pid; RunFolderError if a live process holds it."""
        pid = self.lock_pid()
        if pid is not None and pid != os.getpid() and pid_alive(pid):
            raise RunFolderError(f"{self.path}: run is still running (pid {pid}); wait for it or stop it first")
        write_json_atomic(self.path / LOCK_FILE, os.getpid())
        self.prepare()

    def prepare(self) -> None:
        """Make the folder's parent-only files trustworthy before the loop reads them: a folder written before
        proofs existed gets its key and adopts what its parent had recorded (the design files and candidate
        records; a trained candidate's evaluation when it still holds the recorded fitness; never an analysis or
        a video, which are made again); then every parent-only file without a valid proof is removed, so it is
        computed again, never shown (`rewardsmith.run_folder.candidate.PARENT_ONLY`)."""
        if self.proofs.legacy:
            self.proofs.create_key()
            adopted = [self._adopt(c) for c in self.candidate_folders()]
            self.event(Event.PROOFS_ADOPTED, candidates=sum(adopted))
        model = str((read_object(self.path / RUN_FILE, max_bytes=MAX_RUN_FILE_BYTES) or {}).get("model") or "?")
        for cand in self.candidate_folders():
            for path in cand.unproven():
                remove_tree(path)
            cand.restore_design(model)

    def _adopt(self, cand: CandidateFolder) -> bool:
        record = read_record(cand.record_path, CandidateRecord)
        if record is None:
            return False
        cand.accept_design()
        cand.sign(cand.record_path)
        evaluation = read_record(cand.evaluation_path, Evaluation)
        if record.status == "trained" and evaluation is not None and evaluation.fitness_mean == record.fitness:
            cand.accept_evaluation(evaluation)
        return True

    def release(self) -> None:
        """Remove run.lock if this process holds it."""
        if self.lock_pid() == os.getpid():
            (self.path / LOCK_FILE).unlink(missing_ok=True)

    def status(self) -> str:
        """running | finished | failed | interrupted (see the module docstring)."""
        pid = self.lock_pid()
        if pid is not None and pid_alive(pid):
            return "running"
        ends = [
            e["event"]
            for e in self.events()
            if e.get("event") in (Event.RUN_FINISHED, Event.RUN_FAILED, Event.RUN_RESUMED, Event.RUN_STARTED)
        ]
        last = ends[-1] if ends else None
        return {str(Event.RUN_FINISHED): "finished", str(Event.RUN_FAILED): "failed"}.get(last or "", "interrupted")

    # -- candidates ----------------------------------------------------------------------------------

    def cand_dir(self, iteration: int, index: int) -> Path:
        """`iter_<i>/cand_<j>/` (not created)."""
        return self.path / cand_dir_name(iteration, index)

    def cand(self, iteration: int, index: int) -> CandidateFolder:
        """The candidate's folder as a `CandidateFolder`."""
        return CandidateFolder(self.path, iteration, index)

    def cand_of(self, record: CandidateRecord) -> CandidateFolder:
        """The `CandidateFolder` of a record."""
        return CandidateFolder(self.path, record.iteration, record.index)

    def candidate_folders(self) -> list[CandidateFolder]:
        """Every `iter_<i>/cand_<j>/` folder present, in (iteration, index) order."""
        found = []
        for path in self.path.glob("iter_*/cand_*"):
            try:
                found.append(CandidateFolder.at(path))
            except ValueError:
                continue
        return sorted(found, key=lambda c: (c.iteration, c.index))

    def candidate(self, iteration: int, index: int) -> CandidateRecord | None:
        """The candidate's record (verified), or None while it has none (not designed yet, or cut short)."""
        return self.cand(iteration, index).record()

    def save_candidate(self, record: CandidateRecord) -> None:
        """Write candidate.json atomically, signed (see `CandidateFolder.save_record`)."""
        self.cand_of(record).save_record(record)

    def candidates(self) -> list[CandidateRecord]:
        """Every candidate with a record the parent wrote, in (iteration, index) order."""
        found = (c.record() for c in self.candidate_folders() if (c.path / CANDIDATE_FILE).is_file())
        return sorted((r for r in found if r is not None), key=lambda r: (r.iteration, r.index))

    def analysis(self, record: CandidateRecord) -> dict[str, Any] | None:
        """The candidate's analysis.json, if the parent wrote it (a planted one reads as missing)."""
        return self.cand_of(record).analysis()

    def save_best(self, record: CandidateRecord) -> None:
        """Copy a candidate to best/ (each file atomically, candidate.json last); only its verified reward."""
        best = self.path / BEST_DIR
        best.mkdir(exist_ok=True)
        code = self.cand_of(record).verified(self.cand_of(record).reward_path)
        if code is None:
            raise RunFolderError(f"{record.id}: its {REWARD_FILE} is missing or was not written by rewardsmith")
        write_bytes_atomic(best / REWARD_FILE, code)
        write_json_atomic(best / CANDIDATE_FILE, record.model_dump())

    def best_id(self) -> str | None:
        """The id in best/candidate.json, if any."""
        record = read_record(self.path / BEST_DIR / CANDIDATE_FILE, CandidateRecord)
        return record.id if record else None

    # -- totals and summary ----------------------------------------------------------------------------

    def llm_totals(self) -> dict[str, Any]:
        """Calls, cached calls, tokens and cost paid, from the call log (replays from the cache cost nothing)."""
        totals: dict[str, Any] = {"llm_calls": 0, "cached_calls": 0, "tokens": 0, "cost_usd": 0.0}
        for path in sorted((self.path / LLM_DIR).glob("[0-9]*_*.json")):
            call = read_object(path, max_bytes=MAX_RUN_FILE_BYTES)
            if call is None or call.get("response") is None:
                continue
            totals["llm_calls"] += 1
            if call.get("cached"):
                totals["cached_calls"] += 1
                continue
            totals["tokens"] += int(call.get("prompt_tokens") or 0) + int(call.get("completion_tokens") or 0)
            totals["cost_usd"] += float(call.get("cost_usd") or 0.0)
        totals["cost_usd"] = round(totals["cost_usd"], 6)
        return totals

    def write_summary(self, summary: RunSummary) -> None:
        """Write summary.json atomically."""
        write_json_atomic(self.path / SUMMARY_FILE, summary.model_dump())

    def summary(self) -> dict[str, Any] | None:
        """summary.json, if written."""
        return read_object(self.path / SUMMARY_FILE)
