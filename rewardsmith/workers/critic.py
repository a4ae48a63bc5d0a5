"""The `critic` worker mode: the critic's dynamic check (a smoke run), worker side: call a reward file on real transitions and measure it.

Runs inside a sandboxed worker (`rewardsmith.workers.main critic JOB`). Before the reward is loaded, it
collects transitions (state, action, next_state) from the task env with random-action and zero-action
rollouts on fixed seeds. Then it locks the process down, loads the reward, makes one warm-up call and
calls the reward on every transition, timing each call. Everything it finds goes to `smoke.json`:

    {"transitions", "episodes", "evaluated", "budget": {"median_ms", "max_ms"},
     "time_ms": {"median", "p95", "max"}, "total": {"min", "mean", "max", "std"},
     "components": {name: {"min", "mean", "max", "mean_abs", "std", "count"}}, "shuttle_rollouts",
     "findings": [{"code", "message", "severity", "line", "transition"}], "sandbox": {...}}

Errors reject the reward: an exception (type, message, line in the reward file), a contract violation
(the first one, with its transition index, and how many transitions broke it), a call slower than the
budget. Warnings do not reject (`rewardsmith.stages.critic` says where they go): a constant total, a dominant
component, a total that depends on the action alone on these states (`state-blind`,
`rewardsmith.workers.state_blind`), and a reward that pays more for moving back and forth than for holding
still (`shuttle`: the random-action rollouts played backwards and held still, `rewardsmith.workers.shuttle`).

With the progress strategy on (`options["progress"]`, see `rewardsmith.reward.progress`), the module's
`progress` is loaded with `compute_reward` and called on each transition's `next_state` right after the
reward, inside the same timed call; smoke.json then also holds `"progress": {"length", "min", "mean", "max"}`
(per sub-goal) and its findings: `progress-missing`, `progress-exception`, `progress-contract` (not a
list of floats, non-finite, outside [0, 1]) and `progress-length` (a length that varies between states).
"""

from __future__ import annotations

import time
import traceback
from typing import Any

import numpy as np

from rewardsmith.errors import RewardFileError, RewardsmithError, Untraceable, require_extra
from rewardsmith.files import write_json_atomic
from rewardsmith.reward.contract import validate_result
from rewardsmith.reward.progress import PROGRESS_CONTRACT, ProgressOptions, load_with_progress, validate_progress
from rewardsmith.reward.state import Snapshotter, State
from rewardsmith.reward.wrappers import frozen, neutral_action
from rewardsmith.run_folder.names import SMOKE_FILE
from rewardsmith.run_folder.records import SUMMARY_FILE
from rewardsmith.stats import is_constant
from rewardsmith.task import TaskSpec, make_env
from rewardsmith.workers.job import WorkerJob
from rewardsmith.workers.shuttle import Mirror, Mirrorer, rewards_of, shuttle_message
from rewardsmith.workers.state_blind import state_blind_message

CAPTURED_FIELDS = ("xpos", "xquat", "xmat", "cvel", "subtree_com", "site_xpos", "site_xmat")
"""Every derived MuJoCo array a `State` can read lazily; copied into each snapshot up front (the reward is
loaded only after the rollouts), so timed calls read copies as they do in training instead of paying
for a late kinematics recomputation."""

DEFAULTS: dict[str, Any] = {
    "transitions": 400,  # at least this many transitions are collected
    "episode_steps": 100,  # each rollout is cut after this many steps
    "seed": 0,  # rollout i uses seed + i; even i: random actions, odd i: zero actions
    "per_call_budget_ms": 2.0,  # median time per call; 100k training steps at 2 ms cost 200 s
    "per_call_max_ms": 50.0,  # slowest single call; loose so scheduler noise on busy CPUs does not reject
    "dominance_ratio": 100.0,  # a component whose mean |value| exceeds this times every other one dominates
    "eval_time_limit_s": 10.0,  # stop calling a reward this slow early (the time findings then reject it)
}

Transition = tuple[State, np.ndarray, State]


def run_critic_job(job: WorkerJob) -> dict[str, Any]:
    """Collect transitions, load the reward, sandbox, call it on every transition; write smoke.json."""
    from rewardsmith.workers.main import enter_sandbox, load_job_reward, read_job_reward

    options = {**DEFAULTS, **job.options}
    spec = job.task()
    mirrors: list[Mirror] = []
    transitions, episodes = collect_transitions(
        spec, int(options["transitions"]), int(options["episode_steps"]), int(options["seed"]), mirrors=mirrors
    )
    findings: list[dict[str, Any]] = []
    report: dict[str, Any] = {
        "transitions": len(transitions),
        "episodes": episodes,
        "evaluated": 0,
        "budget": {"median_ms": float(options["per_call_budget_ms"]), "max_ms": float(options["per_call_max_ms"])},
    }
    reward_file = str(job.reward_path)
    source = read_job_reward(job)
    with_progress = ProgressOptions.from_job(options) is not None
    mjx_env = mjx_env_to_trace_on(spec, options, report)  # JAX's imports and the model, before lock-down
    report["sandbox"] = enter_sandbox(job)  # before any of the reward's code runs, module body included
    progress_fn = None
    try:
        if with_progress:
            reward_fn, progress_fn = load_with_progress(source, filename=reward_file, gate=job.ast_gate)
        else:
            reward_fn = load_job_reward(job, source)
    except RewardFileError:
        raise  # policy violations: the worker records them in error.json
    except Exception as e:  # noqa: BLE001 - the module body itself raised
        findings.append(_exception_finding(e, reward_file, None, "while loading the reward file"))
        reward_fn = None
    if reward_fn is not None and with_progress and progress_fn is None:
        findings.append(
            _finding(
                "progress-missing",
                f"the progress strategy is on: define a top-level `def {PROGRESS_CONTRACT.split(' ->')[0]}:` "
                "returning one value in [0, 1] per sub-goal (0 = not started, 1 = done)",
            )
        )
        reward_fn = None
    if reward_fn is not None:
        _call_once(reward_fn, transitions[0])  # warm-up (lazy numpy paths) before the timed calls
        if progress_fn is not None:
            _call_once(lambda s, a, n: progress_fn(n), transitions[0])
        findings += evaluate(reward_fn, transitions, reward_file, options, report, progress_fn=progress_fn)
        report["shuttle_rollouts"] = len(mirrors)  # 0: the env cannot recompute its observation from a state
        if mirrors and not any(f["severity"] == "error" for f in findings):
            findings += shuttle_findings(reward_fn, transitions, mirrors)
    if reward_fn is not None and mjx_env is not None and not any(f["severity"] == "error" for f in findings):
        load = lambda rewritten: load_job_reward(job, rewritten)  # noqa: E731 - the gate, as for the source
        findings += trace_findings(reward_fn, mjx_env, report, source=source, load=load, transitions=transitions)
    report["findings"] = findings
    write_json_atomic(job.out_dir / SMOKE_FILE, report)
    errors = sum(f["severity"] == "error" for f in findings)
    write_json_atomic(
        job.out_dir / SUMMARY_FILE,
        {"status": "checked", "errors": errors, "warnings": len(findings) - errors, "transitions": len(transitions)},
    )
    return report


def mjx_env_to_trace_on(spec: TaskSpec, options: dict[str, Any], report: dict[str, Any]):
    """When this run trains on the MJX backend (`options["backend"]`, resolved as the training worker resolves
    it; under `auto`, for the run's longest training, `options["longest_training"]`), the MJX env to trace the
    reward on, built before lock-down; else None. `report["jax_trace"]` says why no trace will run when the
    backend is MJX but the env or the `mjx` extra is missing (training says so too)."""
    from rewardsmith.workers.backends import resolve_backend

    if resolve_backend(options.get("backend"), spec, timesteps=options.get("longest_training")) != "mjx":
        return None
    try:
        require_extra("jax")
        import jax

        # tracing and its rewrite check need no GPU, and a CUDA context would not fit a CPU worker's lock-down (its
        # threads and address space: docs/mjx.md, "On a GPU"); the training worker traces again on its own device
        jax.config.update("jax_platforms", "cpu")
        from rewardsmith.workers.mjx.envs import MjxEnv

        return MjxEnv.for_spec(spec)
    except RewardsmithError as e:
        report["jax_trace"] = {"traced": False, "skipped": str(e)[:500]}
        return None


def trace_findings(
    reward_fn, mjx_env, report: dict[str, Any], *, source: str, load, transitions: list[Transition]
) -> list[dict[str, Any]]:
    """Trace the reward to JAX as the MJX training worker will (`workers.mjx.reward_export`, its branch rewrite
    checked on these transitions); a reward that does not trace is a warning the designer can repair: until then
    its candidate trains on the CPU backend."""
    from rewardsmith.workers.mjx.reward_export import export_reward

    started = time.perf_counter()
    try:
        artifact = export_reward(reward_fn, mjx_env, source=source, load=load, transitions=transitions)
    except Untraceable as e:
        report["jax_trace"] = {"traced": False, "seconds": round(time.perf_counter() - started, 3)}
        return [
            _finding(
                "untraceable",
                f"{e}. Until it traces, this candidate trains on the CPU backend (sb3) instead of MJX.",
                severity="warning",
            )
        ]
    report["jax_trace"] = {
        "traced": True,
        "rewritten": artifact.rewritten,
        "components": artifact.components,
        "seconds": round(time.perf_counter() - started, 3),
    }
    return []


def collect_transitions(
    spec: TaskSpec, count: int, episode_steps: int, seed: int, *, mirrors: list[Mirror] | None = None
) -> tuple[list[Transition], int]:
    """At least `count` real transitions from alternating random-action and zero-action rollouts; with `mirrors`,
    the random-action rollouts played backwards and held still are appended to it, for the shuttle check
    (`rewardsmith.workers.shuttle`)."""
    env = make_env(spec)
    snap = Snapshotter(env)
    if snap.schema is not None:
        snap.schema.used_fields.update(CAPTURED_FIELDS)
    mirrorer = Mirrorer(env, snap) if mirrors is not None else None
    zero = neutral_action(env.action_space)
    transitions: list[Transition] = []
    episode = 0
    while len(transitions) < count:
        obs, _ = env.reset(seed=seed + episode)
        env.action_space.seed(seed + episode)
        state, first, random = snap(obs), len(transitions), episode % 2 == 0
        recorder = mirrorer if random else None
        if recorder is not None:
            recorder.record(obs)
        for _ in range(episode_steps):
            native = env.action_space.sample() if random else zero
            action = frozen(native)  # as the reward gets it in training (a discrete choice as a 0-d float)
            state.freeze()
            obs, _, terminated, truncated, _ = env.step(native)
            next_state = snap(obs)
            if recorder is not None:
                recorder.record(obs)
            transitions.append((state, action, next_state))
            state = next_state
            if terminated or truncated:
                break
        state.freeze()
        mirror = recorder.mirror(first, frozen(zero)) if recorder is not None else None  # after the last freeze
        if mirror is not None and mirrors is not None:
            mirrors.append(mirror)
        episode += 1
    env.close()
    return transitions, episode


def shuttle_findings(reward_fn, transitions: list[Transition], mirrors: list[Mirror]) -> list[dict[str, Any]]:
    """A `shuttle` warning when the reward pays for moving back and forth (`rewardsmith.workers.shuttle`); nothing
    when it cannot be told (the reward raised or returned a non-finite total on a mirrored state)."""
    try:
        episodes = [rewards_of(reward_fn, transitions, mirror) for mirror in mirrors]
    except Exception:  # noqa: BLE001 - untrusted code on states training never shows it: no verdict, no blame
        return []
    if not all(np.isfinite(np.concatenate(episode)).all() for episode in episodes):
        return []
    message = shuttle_message(episodes)
    return [_finding("shuttle", message, severity="warning")] if message else []


def _call_once(reward_fn, transition: Transition) -> None:
    try:
        reward_fn(*transition)
    except Exception:  # noqa: BLE001 - reported with its line by `evaluate`
        pass


def evaluate(
    reward_fn,
    transitions: list[Transition],
    reward_file: str,
    options: dict[str, Any],
    report: dict[str, Any],
    *,
    progress_fn=None,
) -> list[dict[str, Any]]:
    """Call the reward (and `progress_fn` on the next state, timed with it) on every transition; fill `report`
    with statistics and return the findings."""
    findings: list[dict[str, Any]] = []
    times, totals = [], []
    components: dict[str, list[float]] = {}
    first_exception = first_violation = None
    exceptions = violations = 0
    progress = ProgressCheck(reward_file) if progress_fn is not None else None
    deadline = time.perf_counter() + float(options["eval_time_limit_s"])
    for index, transition in enumerate(transitions):
        if time.perf_counter() > deadline:
            break
        start = time.perf_counter()
        try:
            result = reward_fn(*transition)
        except Exception as e:  # noqa: BLE001 - untrusted code; reported, not raised
            if progress is not None:
                progress.call(progress_fn, transition[2], index)
            times.append(time.perf_counter() - start)
            exceptions += 1
            first_exception = first_exception or _exception_finding(e, reward_file, index)
            continue
        if progress is not None:
            progress.call(progress_fn, transition[2], index)
        times.append(time.perf_counter() - start)
        try:
            total, parts = validate_result(result)
        except RewardFileError as e:
            violations += 1
            first_violation = first_violation or _finding("contract", f"transition {index}: {e}", transition=index)
            continue
        totals.append(total)
        for name, value in parts.items():
            components.setdefault(name, []).append(value)
    for first, count in ((first_exception, exceptions), (first_violation, violations)):
        if first is not None:
            first["message"] += f" ({count} of {len(times)} transitions failed this way)"
            findings.append(first)
    report["evaluated"] = len(times)
    retime_slow_calls(times, transitions, reward_fn, float(options["per_call_max_ms"]) / 1000, progress_fn)
    report["time_ms"] = _time_stats(times)
    findings += _time_findings(report["time_ms"], options)
    if len(times) < len(transitions):
        findings.append(
            _finding(
                "too-slow",
                f"stopped after {len(times)} of {len(transitions)} transitions: the "
                f"calls took over {float(options['eval_time_limit_s']):g} s in all",
            )
        )
    if progress is not None:
        findings += progress.findings(len(times))
        report["progress"] = progress.stats()
    report["total"] = _stats(totals) if totals else None
    report["components"] = {name: _stats(values) for name, values in components.items()}
    if totals:
        findings += shape_findings(report["total"], report["components"], float(options["dominance_ratio"]))
    varies = bool(totals) and not is_constant(report["total"]["std"], report["total"]["mean"])
    if (
        varies
        and not (exceptions or violations)
        and (blind := state_blind_message(reward_fn, transitions, report["components"]))
    ):
        findings.append(_finding("state-blind", blind, severity="warning"))
    return findings


class ProgressCheck:
    """What `progress(next_state)` returned over the transitions: the values, and the first problem of each kind."""

    def __init__(self, reward_file: str) -> None:
        self.reward_file = reward_file
        self.values: list[list[float]] = []
        self.first: dict[str, dict[str, Any]] = {}
        self.count: dict[str, int] = {}

    def call(self, progress_fn, next_state: State, index: int) -> None:
        """Call progress once and record its value or its problem (an exception, a contract violation, a length
        that differs from the first valid value's)."""
        try:
            raw = progress_fn(next_state)
        except Exception as e:  # noqa: BLE001 - untrusted code; reported, not raised
            self._problem("progress-exception", _exception_finding(e, self.reward_file, index), index)
            return
        try:
            values = validate_progress(raw)
        except RewardFileError as e:
            self._problem("progress-contract", _finding("progress-contract", f"transition {index}: {e}"), index)
            return
        if self.values and len(values) != len(self.values[0]):
            message = (
                f"transition {index}: progress returned {len(values)} values but {len(self.values[0])} on "
                "transition 0; return the same number of sub-goals on every state"
            )
            self._problem("progress-length", _finding("progress-length", message), index)
            return
        self.values.append(values)

    def _problem(self, code: str, finding: dict[str, Any], index: int) -> None:
        finding.update(code=code, transition=index)
        if code == "progress-exception":
            finding["message"] = "in progress: " + finding["message"]
        self.first.setdefault(code, finding)
        self.count[code] = self.count.get(code, 0) + 1

    def findings(self, calls: int) -> list[dict[str, Any]]:
        """The first finding of each kind, with how many of the `calls` transitions broke it that way."""
        found = []
        for code, finding in self.first.items():
            finding["message"] += f" ({self.count[code]} of {calls} transitions failed this way)"
            found.append(finding)
        return found

    def stats(self) -> dict[str, Any] | None:
        """Per sub-goal min, mean and max over the valid values, and the vector's length; None without any."""
        if not self.values:
            return None
        data = np.asarray(self.values, dtype=np.float64)
        return {
            "length": int(data.shape[1]),
            "min": [round(float(v), 4) for v in data.min(axis=0)],
            "mean": [round(float(v), 4) for v in data.mean(axis=0)],
            "max": [round(float(v), 4) for v in data.max(axis=0)],
        }


def shape_findings(
    total: dict[str, float], components: dict[str, dict[str, float]], ratio: float
) -> list[dict[str, Any]]:
    """Warnings: a total that does not vary over the states, a component that dwarfs all the others."""
    findings = []
    if is_constant(total["std"], total["mean"]):
        findings.append(
            _finding(
                "constant-total",
                f"the total is constant ({total['mean']:.6g}) on all sampled "
                "states, so it cannot guide learning; make it depend on the state and action",
                severity="warning",
            )
        )
    for name, stats in components.items():
        others = [s["mean_abs"] for other, s in components.items() if other != name]
        if others and max(others) > 0 and stats["mean_abs"] > ratio * max(others):
            advice = (
                f"it is a constant {stats['mean']:.4g} a step, which changes a return only through the episode's "
                "length: negative, it pays for ending episodes sooner (right where they end on success, wrong where "
                "they end on failure); positive, for making them last (wrong where they end on success). Keep it "
                "only if that is what the task's episodes need, and scale the state-dependent terms so they matter"
                if is_constant(stats["std"], stats["mean"])
                else "rescale the components so each one can matter"
            )
            findings.append(
                _finding(
                    "dominant-component",
                    f"component {name!r} (mean |value| {stats['mean_abs']:.4g}) is over "
                    f"{ratio:g}x every other component (largest {max(others):.4g}); {advice}",
                    severity="warning",
                )
            )
    return findings


RETIMED_CALLS = 5
"""The slowest calls over the per-call limit timed again (`retime_slow_calls`), at most this many."""


def retime_slow_calls(times: list[float], transitions, reward_fn, limit_s: float, progress_fn=None) -> None:
    """`times[i]` is the call on `transitions[i]`. Call the reward again, twice, on each of the slowest transitions
    whose call took over `limit_s`, and keep its fastest time: a call the scheduler held up on a busy machine
    (104 ms against a 50 ms limit, seen under load) was the machine's, while a branch that is expensive on that
    state is slow every time."""
    slow = sorted((i for i, t in enumerate(times) if t > limit_s), key=lambda i: -times[i])[:RETIMED_CALLS]
    for i in slow:
        for _ in range(2):
            start = time.perf_counter()
            try:
                reward_fn(*transitions[i])
                if progress_fn is not None:  # timed with the reward, as the first time
                    progress_fn(transitions[i][2])
            except Exception:  # noqa: BLE001 - untrusted code; its exception was counted the first time
                pass
            times[i] = min(times[i], time.perf_counter() - start)


def _time_findings(time_ms: dict[str, float], options: dict[str, Any]) -> list[dict[str, Any]]:
    median_budget, max_budget = float(options["per_call_budget_ms"]), float(options["per_call_max_ms"])
    findings = []
    if time_ms["median"] > median_budget:
        findings.append(
            _finding(
                "too-slow",
                f"a call takes {time_ms['median']:.3g} ms (median); the budget is "
                f"{median_budget:g} ms per call: vectorise with numpy, drop loops over many items",
            )
        )
    elif time_ms["max"] > max_budget:
        findings.append(
            _finding(
                "too-slow",
                f"the slowest call took {time_ms['max']:.3g} ms; the limit is "
                f"{max_budget:g} ms: remove expensive branches taken on some states",
            )
        )
    return findings


def _exception_finding(error: BaseException, reward_file: str, index: int | None, where: str = "") -> dict[str, Any]:
    line = None
    for frame in traceback.extract_tb(error.__traceback__):
        if frame.filename == reward_file:
            line = frame.lineno  # innermost frame in the reward file wins
    at = where or f"on transition {index}"
    where_line = f" at line {line}" if line else ""
    return _finding(
        "exception",
        f"{type(error).__name__}: {error} (raised {at}{where_line})",
        line=line,
        transition=index,
        exception=type(error).__name__,
    )


def _finding(
    code: str,
    message: str,
    *,
    severity: str = "error",
    line: int | None = None,
    transition: int | None = None,
    **extra: Any,
) -> dict[str, Any]:
    return {"code": code, "message": message, "severity": severity, "line": line, "transition": transition, **extra}


def _stats(values: list[float]) -> dict[str, float]:
    data = np.asarray(values, dtype=np.float64)
    return {
        "min": float(data.min()),
        "mean": float(data.mean()),
        "max": float(data.max()),
        "mean_abs": float(np.abs(data).mean()),
        "std": float(data.std()),
        "count": int(data.size),
    }


def _time_stats(seconds: list[float]) -> dict[str, float]:
    ms = np.asarray(seconds, dtype=np.float64) * 1000.0
    return {
        "median": round(float(np.median(ms)), 4),
        "p95": round(float(np.percentile(ms, 95)), 4),
        "max": round(float(ms.max()), 4),
    }
