"""The design round of an iteration: ask the designer for the round's candidates (one of them a crossover of the
two best so far with `--crossover`), then check each one and ask for repairs with the exact findings, up to
`repair_rounds`, saving every attempt (`attempts.json`, `attempt_<n>.*`). A candidate the critic (and, from
iteration 2 on, the trajectory screen) accepts gets its `reward.py` and the status "designed"; halving trains it
next (`rewardsmith.search.halving`)."""

from __future__ import annotations

import shutil
import time
from concurrent.futures import ThreadPoolExecutor

from rewardsmith.config import ResolvedConfig
from rewardsmith.llm.template import template_label
from rewardsmith.run_folder.candidate import CandidateFolder
from rewardsmith.run_folder.folder import RunFolder
from rewardsmith.run_folder.names import EMPHASIS_FILE, SCREEN_FILE, Event, attempt_file
from rewardsmith.run_folder.records import Attempt, CandidateRecord
from rewardsmith.search.live import ReplyTicker
from rewardsmith.search.selection import ranked, rule_for
from rewardsmith.search.session import Search, usage
from rewardsmith.search.training import screen_archives
from rewardsmith.stages.critic import critique
from rewardsmith.stages.design_emphasis import emphasis_for, with_emphasis
from rewardsmith.stages.designer import Design, Failure, is_duplicate
from rewardsmith.stages.history import best_for_prompt, candidate_code, prompt_inputs, run_codes
from rewardsmith.stages.screen import ScreenReport, screen

DEDUPE = "[dedupe]"
"""The reason of a candidate whose code repeats an earlier one; a round of only these is not retried (the same
prompt would bring the same code again: the built-in local model's template does, and the quick start paid
minutes for it)."""
REPEAT = "[repeat]"
"""The finding of a repair whose code is the attempt's it was to fix: it is not checked again and ends the
candidate's repairs (the same request would bring the same code)."""


def design_round(
    s: Search, cands: list[CandidateFolder], best: CandidateRecord | None, failures: list[Failure]
) -> list[CandidateRecord]:
    """Design (and check) a round's candidates (folders of one iteration) in parallel; a candidate already on
    record (a resumed run) is kept as it is. Returns the round's records in the order of `cands`."""
    iteration, indices = cands[0].iteration, [c.index for c in cands]
    pending = [c.index for c in cands if c.record() is None]
    for j in pending:
        s.progress.update(f"{iteration}.{j}", "designing")
    parents: dict[int, str | None] = {j: best.id if best else None for j in pending}
    designs = ask_round(s, iteration, indices, pending, best, failures, parents)
    duplicates = find_duplicates(s.folder, iteration, designs)

    def one(cand: CandidateFolder) -> CandidateRecord:
        j = cand.index
        return cand.record() or design_candidate(s, cand, designs[j], duplicates.get(j), parents[j])

    with ThreadPoolExecutor(max_workers=len(cands), thread_name_prefix="candidate") as pool:
        return list(pool.map(one, cands))


def ask_round(
    s: Search,
    iteration: int,
    indices: list[int],
    pending: list[int],
    best: CandidateRecord | None,
    failures: list[Failure],
    parents: dict[int, str | None],
) -> dict[int, Design]:
    """One designer reply per pending index; with `--crossover` (and two different trained rewards so far), the
    round's last sample combines the two best instead, and `parents` names both."""
    last = indices[-1]
    crossing = s.config.crossover and len(indices) >= 2 and last in pending
    pair = crossover_pair(s.folder, iteration, s.config) if crossing else None
    regular = [j for j in pending if not (pair and j == last)]
    designs: dict[int, Design] = {}
    tried = run_codes(s.folder)  # a model that avoids repeats never hands back the run's earlier code
    if regular:
        messages = s.designer.prompt(
            **prompt_inputs(s.folder, iteration, best, best_only=s.config.strategy == "eureka"),  # Eureka: best only
            failures=failures,
        )
        asked = ask_designer(s, iteration, messages, regular, emphasize=True, avoid=tried)
        designs = dict(zip(regular, asked, strict=True))
        for j in regular:  # K different requests: the emphasis each sample was given
            emphasis, cand = emphasis_for(j), s.folder.cand(iteration, j)
            cand.path.mkdir(parents=True, exist_ok=True)
            cand.save_json(cand.file(EMPHASIS_FILE), {"emphasis": emphasis.name if emphasis else None})
    if pair:
        parents[last] = "+".join(r.id for r in pair)
        s.folder.event(Event.CROSSOVER_REQUESTED, candidate=f"{iteration}.{last}", parents=[r.id for r in pair])
        first, second = (best_for_prompt(s.folder, r) for r in pair)
        assert first is not None and second is not None
        round_codes = [d.code for d in designs.values() if d.code is not None]
        crossed = s.designer.crossover(first, second)
        designs[last] = ask_designer(s, iteration, crossed, [last], avoid=[*tried, *round_codes])[0]
    return designs


def crossover_pair(
    folder: RunFolder, iteration: int, config: ResolvedConfig
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


def ask_designer(
    s: Search,
    iteration: int,
    messages: list[dict[str, str]],
    indices: list[int],
    *,
    emphasize: bool = False,
    avoid: list[str] | None = None,
) -> list[Design]:
    """One designer reply per candidate index, with each waiting candidate's elapsed time and ETA shown;
    `emphasize`: each index's request ends with its design emphasis (`rewardsmith.stages.design_emphasis`);
    `avoid`: the run's earlier codes (`Designer.sample`)."""
    ids = {sample_number(iteration, j): f"{iteration}.{j}" for j in indices}
    each = (
        {sample_number(iteration, j): with_emphasis(messages, emphasis_for(j)) for j in indices} if emphasize else None
    )
    with ReplyTicker(s.progress, s.replies, list(ids.values())) as ticker:
        return s.designer.sample(
            messages,
            list(ids),
            on_done=lambda k, design: ticker.arrived(ids[k], design.latency_s, design.cached),
            each=each,
            avoid=avoid,
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


# -- one candidate's attempts ------------------------------------------------------------------------------


def design_candidate(
    s: Search, cand: CandidateFolder, design: Design, duplicate_of: str | None, parent: str | None
) -> CandidateRecord:
    """Check the design and ask for repairs with the exact findings, up to `repair_rounds`; save every attempt."""
    started = time.time()
    cand.path.mkdir(parents=True, exist_ok=True)
    record = CandidateRecord(
        id=cand.id,
        iteration=cand.iteration,
        index=cand.index,
        parent=parent,
        status="rejected",
        tokens=design.tokens,
        cost_usd=design.cost_usd,
    )
    attempts: list[Attempt] = []
    problems = ""  # the findings of the last attempt, sent back with the next repair request
    for n in range(s.config.repair_rounds + 1 if duplicate_of is None else 1):
        repeated = False
        if n:
            before = design.code
            design = repair(s, record, design, n, attempts[-1].findings, problems)
            repeated = before is not None and design.code is not None and is_duplicate(design.code, [before])
        attempt, problems = check_attempt(s, cand, record, design, n, duplicate_of, repeated=repeated)
        attempts.append(attempt)
        cand.save_attempts(attempts)
        if attempt.accepted:
            cand.write_reward(design.code or "", parent=parent, model=s.model.name)
            record.status, record.template = "designed", template_label(design.code)
            if record.template:
                s.progress.log(f"{record.id} is a template, not designed by a model: {record.template}")
            break
        if repeated:
            break
    if record.status == "rejected":
        record.reason = attempts[-1].findings[0] if attempts[-1].findings else "rejected by the critic"
    record.cost_usd = round(record.cost_usd, 6)
    record.wall_s = round(time.time() - started, 3)
    s.folder.save_candidate(record)
    s.folder.event(
        Event.CANDIDATE_DESIGNED,
        candidate=record.id,
        status=record.status,
        reason=record.reason,
        repair_rounds=record.repair_rounds,
        tokens=record.tokens,
    )
    s.progress.status(**usage(s))
    return record


def repair(s: Search, record: CandidateRecord, design: Design, n: int, findings: list[str], problems: str) -> Design:
    """Repair request `n`: the designer's corrected module for `problems` (the last attempt's findings)."""
    record.repair_rounds = n
    s.folder.event(Event.REPAIR_REQUESTED, candidate=record.id, attempt=n, findings=findings)
    s.progress.update(record.id, f"repair {n}")
    with ReplyTicker(s.progress, s.replies, [record.id], state=f"repair {n}") as ticker:
        design = s.designer.repair(design, problems, sample=sample_number(record.iteration, record.index))
        ticker.arrived(record.id, design.latency_s, design.cached)
    record.tokens += design.tokens
    record.cost_usd += design.cost_usd
    return design


def check_attempt(
    s: Search,
    cand: CandidateFolder,
    record: CandidateRecord,
    design: Design,
    n: int,
    duplicate_of: str | None,
    *,
    repeated: bool = False,
) -> tuple[Attempt, str]:
    """Save attempt `n` and check it (critic, then the screen from iteration 2 on); returns its `attempts.json`
    entry and the problems to send with the next repair request. `repeated`: a repair that returned the previous
    attempt's code, recorded without a check."""
    attempt = Attempt(attempt=n, file=attempt_file(n), tokens=design.tokens, cost_usd=design.cost_usd)
    if design.code is None:
        cand.write_attempt(n, design.text, "reply.md")
        attempt.file, attempt.findings = attempt_file(n, "reply.md"), [f"[extract] {design.error}"]
        return attempt, f"No usable reward code could be taken from your reply: {design.error}"
    code = cand.write_attempt(n, design.code)
    if repeated:
        attempt.findings = [f"{REPEAT} the repair returned the code of attempt {n - 1} unchanged; no more repairs"]
        return attempt, ""
    if duplicate_of is not None:
        attempt.findings = [f"{DEDUPE} same code as candidate {duplicate_of}"]
        return attempt, ""
    s.progress.update(record.id, "critic")
    report = critique(
        s.spec,
        code,
        cand.path,
        model=s.model,
        executor=s.executor,
        env_description=s.description,
        semantic=s.config.semantic,
        options=s.config.job_options() or None,
    )
    shutil.copyfile(cand.critic_path, cand.attempt_path(n, "critic.json"))
    record.tokens += report.tokens
    record.cost_usd += report.cost_usd
    attempt.accepted, attempt.findings = report.accepted, [str(f) for f in report.findings]
    attempt.tokens = design.tokens + report.tokens
    s.folder.event(
        Event.CRITIC_DONE,
        candidate=record.id,
        attempt=n,
        accepted=report.accepted,
        findings=[str(f) for f in report.errors],
    )
    problems = report.repair_text()
    verdict = screen_candidate(s, cand, n, record) if report.accepted and s.config.screen else None
    if verdict is not None and not verdict.passed:
        attempt.accepted, attempt.findings = False, [verdict.finding(), *attempt.findings]
        problems = verdict.repair_text() + ("\n\n" + problems if report.findings else "")
    return attempt, problems


def screen_candidate(s: Search, cand: CandidateFolder, attempt: int, record: CandidateRecord) -> ScreenReport | None:
    """From iteration 2 on, screen a critic-accepted attempt on the earlier iterations' archived trajectories and
    the run's random-policy episodes (`rewardsmith.stages.screen`); its verdict is kept as
    `attempt_<n>.screen.json`. None in iteration 1."""
    if record.iteration < 2:
        return None
    s.progress.update(record.id, "screen")
    # one random-policy evaluation per run, whichever candidate asks first
    archives = screen_archives(s.folder, s.spec, s.executor, before_iteration=record.iteration, lock=s.archive_lock)
    verdict = screen(s.spec, cand.attempt_path(attempt), cand.path, archives, executor=s.executor)
    shutil.copyfile(cand.file(SCREEN_FILE), cand.attempt_path(attempt, "screen.json"))
    s.folder.event(Event.SCREEN_DONE, candidate=record.id, attempt=attempt, **verdict.verdict())
    return verdict
