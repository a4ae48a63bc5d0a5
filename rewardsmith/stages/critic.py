"""The critic: static, dynamic and semantic checks of a reward file, before any training.

1. static: the AST policy (`rewardsmith.sandbox.policy.check_source`): syntax, signature, imports.
2. dynamic: a sandboxed worker (`rewardsmith.workers.critic`) calls the reward on real transitions; the reward
   never runs in this process. Contract violations, exceptions, slow calls and worker crashes are
   errors; a constant total, a dominant component, a total blind to the state (`rewardsmith.workers.state_blind`)
   and a reward that pays for shuttling (`rewardsmith.workers.shuttle`) are warnings, not rejections: with a
   rejection's errors they go into the repair request; on an accepted reward the two that its training cannot show
   again (shuttle, state-blind) go to the next iteration's designer (`rewardsmith.stages.history`).
3. semantic: an LLM reviews the code against the task, seeing the smoke run's values (Auto MC-Reward's Reward
   Critic), `prompts/critic.j2`. Only the problems it names (`- PROBLEM:` bullets) become findings.

Each stage runs only if the previous one found no error. The verdict and every finding go to `critic.json`.

With the progress strategy on (`options["progress"]`, `rewardsmith.reward.progress`), the static stage also
requires `progress(state)`, and the smoke worker checks what it returns (its findings are `progress-*`).
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from rewardsmith.errors import LLMError, RewardsmithError, TaskSpecError
from rewardsmith.files import MAX_COMPONENTS, clean_name, write_json_atomic
from rewardsmith.llm import Model
from rewardsmith.reward.contract import read_reward_source
from rewardsmith.reward.progress import ProgressOptions
from rewardsmith.run_folder.names import CRITIC_DIR, CRITIC_FILE
from rewardsmith.sandbox.policy import check_progress_signature, check_source
from rewardsmith.stages.prompts import render
from rewardsmith.task import TaskSpec
from rewardsmith.workers.executor import Executor
from rewardsmith.workers.job import WorkerJob

_VERDICT = re.compile(r"VERDICT\W{0,6}(OK|REVISE)\b", re.IGNORECASE)
_PROBLEM = re.compile(r"^\s*(?:[-*\d.)]+\s*)?\**PROBLEM\**\s*:\**\s*(.+)$", re.IGNORECASE)
MAX_MESSAGE = 2000


@dataclass
class CriticFinding:
    """One problem with a reward file: which stage saw it, a stable code, the exact message."""

    stage: str
    code: str
    message: str
    severity: str = "error"
    line: int | None = None

    def __str__(self) -> str:
        where = f"line {self.line}, " if self.line else ""
        return f"[{self.stage}] {where}{self.code}: {self.message}"


@dataclass
class CriticReport:
    """The verdict on one reward file: accepted when no finding is an error."""

    accepted: bool
    findings: list[CriticFinding]
    stats: dict[str, Any] = field(default_factory=dict)
    tokens: int = 0
    cost_usd: float = 0.0

    @property
    def errors(self) -> list[CriticFinding]:
        return [f for f in self.findings if f.severity == "error"]

    @property
    def warnings(self) -> list[CriticFinding]:
        return [f for f in self.findings if f.severity != "error"]

    def repair_text(self) -> str:
        """The exact findings, formatted for a repair request to the designer."""
        if self.accepted and not self.findings:
            return "The critic found no problems with this reward file."
        lines = [
            "The critic rejected this reward file. Fix every error below and return the complete corrected file."
            if not self.accepted
            else "The critic accepted this reward file, with warnings worth fixing."
        ]
        for title, group in (("Errors:", self.errors), ("Warnings:", self.warnings)):
            if group:
                lines.append(title)
                lines += [f"- {f}" for f in group]
        dynamic = self.stats.get("dynamic") or {}
        if dynamic.get("components"):
            lines.append("Component values on sampled states (min / mean / max):")
            lines += [
                f"- {name}: {s['min']:.4g} / {s['mean']:.4g} / {s['max']:.4g}"
                for name, s in dynamic["components"].items()
            ]
        progress = dynamic.get("progress") or {}
        if progress.get("mean"):
            lines.append("progress(state) on sampled states, per sub-goal (min / mean / max):")
            lines += [
                f"- progress[{i}]: {lo:.4g} / {mid:.4g} / {hi:.4g}"
                for i, (lo, mid, hi) in enumerate(zip(progress["min"], progress["mean"], progress["max"]))
            ]
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """The JSON form written to critic.json."""
        return {
            "accepted": self.accepted,
            "findings": [asdict(f) for f in self.findings],
            "stats": self.stats,
            "tokens": self.tokens,
            "cost_usd": self.cost_usd,
        }


def critique(
    spec: TaskSpec,
    reward_path: Path,
    out_dir: Path,
    *,
    model: Model | None,
    executor: Executor,
    env_description: str | None,
    semantic: bool | None = None,
    ast_gate: bool = True,
    timeout_s: float = 120,
    options: dict[str, Any] | None = None,
) -> CriticReport:
    """Run the static, dynamic and semantic stages (each only if the previous passed); write critic.json.

    `semantic=None` reviews with the LLM only for real API models (`model.kind == "api"`); the review shows the
    model `env_description` (the run's, built once); `model=None` or `env_description=None` mean no review can
    run. `options` go to the smoke worker (e.g. `per_call_budget_ms`, see `rewardsmith.workers.critic.DEFAULTS`),
    which runs through `executor` (a run's or batch's shared pool, local or Ray; `check`'s one-worker pool).
    """
    reward_path, out_dir = Path(reward_path).resolve(), Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    source = read_reward_source(reward_path)
    with_progress = ProgressOptions.from_job(options or {}) is not None
    findings = static_findings(source, progress=with_progress) if ast_gate else []  # False: test-only, OS alone
    report = CriticReport(accepted=False, findings=findings, stats={"stages": ["static"]})
    if not report.errors:
        report.stats["stages"].append("dynamic")
        findings, report.stats["dynamic"] = dynamic_findings(
            spec,
            reward_path,
            out_dir / CRITIC_DIR,
            ast_gate=ast_gate,
            timeout_s=timeout_s,
            options=options or {},
            executor=executor,
        )
        report.findings += findings
    review = semantic if semantic is not None else getattr(model, "kind", None) == "api"
    if review and not report.errors:
        if model is None or env_description is None:
            raise ValueError("a semantic review needs a model and the environment description")
        report.stats["stages"].append("semantic")
        findings, report.stats["semantic"], report.tokens, report.cost_usd = semantic_findings(
            spec, source, model, env_description, report.stats.get("dynamic")
        )
        report.findings += findings
    report.accepted = not report.errors
    write_json_atomic(out_dir / CRITIC_FILE, report.to_dict())
    return report


def static_findings(source: str, *, progress: bool = False) -> list[CriticFinding]:
    """The AST policy's findings, as errors (with `progress`, also those about `progress(state)`)."""
    found = check_source(source)
    if progress and not any(f.code == "syntax-error" for f in found):
        found += check_progress_signature(source)
    return [CriticFinding("static", f.code, f.message, "error", f.line) for f in found]


def dynamic_findings(
    spec: TaskSpec,
    reward_path: Path,
    work_dir: Path,
    *,
    executor: Executor,
    ast_gate: bool = True,
    timeout_s: float = 120,
    options: dict[str, Any] | None = None,
) -> tuple[list[CriticFinding], dict]:
    """Smoke-run the reward in a sandboxed worker; a crash, kill or timeout is an error finding."""
    from rewardsmith.run_folder.names import SMOKE_FILE
    from rewardsmith.workers.run import read_json_file

    if spec.source is None:
        raise TaskSpecError(f"task '{spec.name}' has no spec file; the critic worker re-reads the spec from disk")
    job = WorkerJob(
        mode="critic",
        task_path=spec.source,
        reward_path=reward_path,
        out_dir=work_dir.resolve(),
        ast_gate=ast_gate,
        options={**(options or {}), "timeout_s": timeout_s, "stall_timeout_s": timeout_s},
    )
    result = executor.submit(job).result()
    if result.status == "failed":
        raise RewardsmithError(
            f"the critic worker could not check {reward_path.name}: {result.error} (log: {work_dir / 'worker.log'})"
        )
    if not result.ok:
        return [CriticFinding("dynamic", "worker", f"the reward's worker process failed: {result.error}")], {}
    smoke = read_json_file(work_dir / SMOKE_FILE)
    if not isinstance(smoke, dict):
        return [CriticFinding("dynamic", "worker", "the reward's worker ended without a readable smoke.json")], {}
    return _smoke_findings(smoke.get("findings")), _smoke_stats(smoke)


def _smoke_findings(raw: Any) -> list[CriticFinding]:
    """Findings from a worker-written file, typed defensively (the worker ran untrusted code)."""
    findings = []
    for item in raw if isinstance(raw, list) else []:
        if not isinstance(item, dict):
            continue
        line = item.get("line")
        findings.append(
            CriticFinding(
                "dynamic",
                str(item.get("code", "unknown"))[:40],
                str(item.get("message", ""))[:MAX_MESSAGE],
                "warning" if item.get("severity") == "warning" else "error",
                line if isinstance(line, int) and not isinstance(line, bool) else None,
            )
        )
    return findings


def _smoke_stats(smoke: dict[str, Any]) -> dict[str, Any]:
    def numbers(value: Any) -> dict[str, float]:
        if not isinstance(value, dict):
            return {}
        return {str(k): v for k, v in value.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}

    raw_components, raw_sandbox = smoke.get("components"), smoke.get("sandbox")
    components: dict[Any, Any] = raw_components if isinstance(raw_components, dict) else {}
    sandbox: dict[Any, Any] = raw_sandbox if isinstance(raw_sandbox, dict) else {}
    progress = _progress_stats(smoke.get("progress"))
    trace = smoke.get("jax_trace")
    return {
        "transitions": smoke.get("transitions"),
        "evaluated": smoke.get("evaluated"),
        "shuttle_rollouts": smoke.get("shuttle_rollouts") if type(smoke.get("shuttle_rollouts")) is int else None,
        "time_ms": numbers(smoke.get("time_ms")),
        "budget_ms": numbers(smoke.get("budget")),
        "total": numbers(smoke.get("total")),
        "components": {clean_name(k): numbers(v) for k, v in list(components.items())[:MAX_COMPONENTS]},
        **({"progress": progress} if progress else {}),
        **(
            {"jax_trace": {k: trace.get(k) is True for k in ("traced", "rewritten")} | numbers(trace)}
            if isinstance(trace, dict)
            else {}
        ),
        "sandbox": {str(k): str(v)[:200] for k, v in sandbox.items()},
    }


def _progress_stats(raw: Any) -> dict[str, list[float]] | None:
    """The smoke run's per-sub-goal progress statistics, typed defensively; None when absent or malformed."""
    if not isinstance(raw, dict):
        return None
    out: dict[str, list[float]] = {}
    for key in ("min", "mean", "max"):
        values = raw.get(key)
        if not isinstance(values, list) or not all(
            isinstance(v, (int, float)) and not isinstance(v, bool) for v in values
        ):
            return None
        out[key] = [float(v) for v in values[:32]]
    return out if len({len(v) for v in out.values()}) == 1 else None


def critic_messages(
    spec: TaskSpec, source: str, env_description: str, smoke: dict[str, Any] | None = None
) -> list[dict[str, str]]:
    """The semantic review request: task (with success and fitness unit), environment, code, smoke values."""
    from rewardsmith.stages.designer import task_text

    lines = []
    if smoke and isinstance(smoke.get("total"), dict) and smoke["total"]:
        lines.append("total: " + _min_mean_max(smoke["total"]))
    for name, values in ((smoke or {}).get("components") or {}).items():
        lines.append(f"{name}: {_min_mean_max(values)}")
    prompt = render(
        "critic.j2",
        task=task_text(spec),
        env_description=env_description.strip(),
        code=source.strip(),
        smoke={"transitions": (smoke or {}).get("evaluated") or (smoke or {}).get("transitions"), "lines": lines}
        if lines
        else None,
    )
    return [{"role": "user", "content": prompt}]


def _min_mean_max(values: dict[str, Any]) -> str:
    return " / ".join(
        f"{values[k]:.4g}" if isinstance(values.get(k), (int, float)) else "-" for k in ("min", "mean", "max")
    )


def named_problems(reasons: str) -> list[str]:
    """The `- PROBLEM: ...` bullets of a review (a bullet's continuation lines included); nothing else."""
    problems: list[str] = []
    for line in reasons.splitlines():
        match = _PROBLEM.match(line)
        if match:
            problems.append(match.group(1).strip())
        elif problems and line.startswith((" ", "\t")) and line.strip():
            problems[-1] += " " + line.strip()
        elif not line.strip() and problems:
            continue
    return problems


def semantic_findings(
    spec: TaskSpec, source: str, model: Model, env_description: str, smoke: dict[str, Any] | None = None
) -> tuple[list[CriticFinding], dict, int, float]:
    """LLM review of the code against the task: (findings, stats, tokens, cost). Never raises for bad answers.

    Only the problems the review names become error findings; a REVISE without any is a warning."""
    try:
        response = model.complete(
            critic_messages(spec, source, env_description, smoke), role="critic", temperature=0.2, max_tokens=1024
        )
    except LLMError as e:
        return (
            [CriticFinding("semantic", "semantic-unavailable", f"the review could not run: {e}", "warning")],
            {"model": model.name, "verdict": None},
            0,
            0.0,
        )
    verdict, reasons = parse_verdict(response.text)
    stats = {"model": model.name, "verdict": verdict, "cached": response.cached}
    tokens = response.prompt_tokens + response.completion_tokens
    if verdict == "REVISE":
        problems = named_problems(reasons)
        if not problems:
            excerpt = " ".join(reasons.split())[:200]
            warning = f"the reviewer asked for a revision without naming a problem; treated as OK: {excerpt!r}"
            return [CriticFinding("semantic", "semantic-unnamed", warning, "warning")], stats, tokens, response.cost_usd
        found = [CriticFinding("semantic", "semantic-revise", p[:MAX_MESSAGE]) for p in problems[:5]]
        return found, stats, tokens, response.cost_usd
    if verdict is None:
        excerpt = " ".join(response.text.split())[:200]
        return (
            [
                CriticFinding(
                    "semantic",
                    "semantic-unparsed",
                    f"the review had no 'VERDICT: OK' or 'VERDICT: REVISE' line; treated as OK. It began: {excerpt!r}",
                    "warning",
                )
            ],
            stats,
            tokens,
            response.cost_usd,
        )
    return [], stats, tokens, response.cost_usd


def parse_verdict(text: str) -> tuple[str | None, str]:
    """("OK" | "REVISE" | None, the reasons): the last verdict line wins; the rest of the text is the reasons."""
    matches = list(_VERDICT.finditer(text or ""))
    if not matches:
        return None, (text or "").strip()
    last = matches[-1]
    verdict = last.group(1).upper()
    lines = [ln for ln in (text or "").splitlines() if not _VERDICT.search(ln)]
    return verdict, "\n".join(lines).strip()
