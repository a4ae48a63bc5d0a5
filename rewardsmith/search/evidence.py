"""What the ranking knows besides each candidate's own fitness: the between-seed floor
(`rewardsmith.search.spread`) and the critic's structural warnings, read from a run folder (`load_evidence`).

A structural warning (`structural_finding`) says that a candidate's reward is mostly a constant per step, or that it
pays for moving back and forth, read from the critic's smoke run (`critic.json`: its findings and per-component
statistics over real transitions):

- `constant-total`: the critic found a constant total;
- `dominant-constant`: a component the critic found dominant (`dominant-component`) is itself constant over the
  sampled states;
- `constant-share`: constant components (std <= 1e-6 |mean|) carry at least `CONSTANT_SHARE` of the components'
  mean |value|: an alive bonus that outweighs every term that depends on the task's progress;
- `shuttle`: the critic's shuttle check found that the reward pays more for moving back and forth than for holding
  still (`rewardsmith.workers.shuttle`);
- `state-blind`: on the critic's states the total depends on the action alone (`rewardsmith.workers.state_blind`).

The selection uses it only to break ties (`rewardsmith.search.selection.tie_break`), and only the kinds in
`TIE_BREAK_KINDS`: their weight is learned from the labelled pools (`bench/critic_warnings.py`, see there).

The critic samples near-random states, where a sparse reward (paid only near the goal) never fires and looks
constant. So the first cut's screen, which replays every reward over the first rung's episodes (where the policies
went), re-judges it: a warned reward whose per-step return varied there (`rewardsmith.stages.screen.varies_per_step`)
loses its warning (`Evidence.recheck`, and `load_evidence` from the signed `rung_screen/screen.json`). Those
returns come from the candidate's own sandboxed screen worker, so a reward could make them vary; it could as well
vary on the critic's states. The warning is a tie-breaker a reward can always avoid, never one it can put on another.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rewardsmith.errors import RewardsmithError
from rewardsmith.run_folder.folder import RunFolder
from rewardsmith.run_folder.names import SPREAD_FILE
from rewardsmith.search.spread import NO_FLOOR, Floor, Repeat, SeedSpread, prior_sd
from rewardsmith.stages.screen import varies_per_step
from rewardsmith.stats import is_constant
from rewardsmith.task import TaskSpec

CONSTANT_SHARE = 0.5
"""Share of the components' mean |value| that constant components must carry for a structural warning."""
TIE_BREAK_KINDS = ("constant-total", "shuttle", "state-blind")
"""The structural warnings that break a tie (weight 1 inside the indistinguishable set); the others weigh 0, as
measured by `bench/critic_warnings.py` on the three labelled pools (no LLM review; 45 rewards the critic accepted).
Chosen on halfcheetah-run-backward and inverted-double-pendulum-balance: `constant-total` fell on 1 weak reward and
no good one; `constant-share` fell on 7 of 8 good rewards and on none of 7 weak or reward-hacking ones (on the
pendulum, where an alive bonus is the task); `dominant-constant` never fired. Held out, reacher-reach:
`constant-total` fell on 1 of 4 weak rewards and on 0 of 8 good ones; no other kind fired. `shuttle` (round 37,
`rewardsmith.workers.shuttle`): on the six labelled MuJoCo pools it fell on 8 of 18 reward-hacking rewards and on none
of 72 good or weak ones, and held out, on none of the 35 shipped example rewards (a test registered before the data,
`bench/replay_tables/README.md`, "A shuttle check"); the first-cut screen does not clear it, since a reward that
varies per step can still pay for shuttling. `state-blind` (round 41, built from the offline default's hopper-backflip
pick, not from a pool): on all 14 labelled pools (238 rewards, samples and repairs) it fell on the 13 effort-only
rewards and on none of the 112 good ones, nor on any shipped example; replayed, no pool's hit rate moved by more than
one search in 100 (docs/search.md, "Round 41")."""
CONSTANT_TOTAL = "critic: the total is constant over the sampled states"
SHUTTLE = "critic: it pays more for moving back and forth than for holding still"
STATE_BLIND = "critic: on the sampled states its total depends on the action alone"
_DOMINANT = re.compile(r"component '([^']+)'")


@dataclass
class Evidence:
    """The between-seed spread of a run and the critic's structural warnings (candidate id -> why)."""

    spread: SeedSpread | None = None
    warnings: dict[str, str] = field(default_factory=dict)
    cleared: dict[str, str] = field(default_factory=dict)
    """Candidate id -> why its critic warning was dropped (`recheck`)."""

    def floor(self, budget: int) -> Floor:
        """The between-seed floor at `budget` (none without a spread)."""
        return self.spread.floor(budget) if self.spread is not None else NO_FLOOR

    def repeat(self, candidate: str, budget: int) -> Repeat | None:
        """The candidate's training on more than one seed at `budget`, which the pick scores by their mean (none
        without a spread)."""
        return self.spread.repeat_of(candidate, budget) if self.spread is not None else None

    def recheck(self, episodes: Mapping[str, Any]) -> None:
        """Drop the constant-total warning of each candidate whose first-cut screen's episodes (candidate id -> its
        `details`: each replayed episode's steps and return) show a per-step return that varied (module docstring).
        A shuttle or state-blind warning stays: a reward that pays for motion, or for the action alone, varies per
        step too."""
        for cid in [c for c, why in self.warnings.items() if why == CONSTANT_TOTAL]:
            details = episodes.get(cid)
            why = varies_per_step(details) if isinstance(details, list) else None
            if why is not None:
                self.cleared[cid] = f"critic's warning dropped: {why}"
                del self.warnings[cid]


def constant(stats: Any) -> bool:
    """True for a component whose statistics say it did not vary over the critic's states."""
    try:
        return is_constant(float(stats["std"]), float(stats["mean"]))
    except (KeyError, TypeError, ValueError):
        return False


def structural_finding(critic: dict[str, Any] | None) -> tuple[str, str] | None:
    """(kind, why) when a critic report says the reward is mostly a constant per step or pays for shuttling (module
    docstring): kind "constant-total", "shuttle", "state-blind", "dominant-constant" or "constant-share"; None
    otherwise."""
    if not isinstance(critic, dict):
        return None
    codes = {str(f.get("code")): str(f.get("message", "")) for f in critic.get("findings") or [] if isinstance(f, dict)}
    if "constant-total" in codes:
        return "constant-total", CONSTANT_TOTAL
    if "shuttle" in codes:
        return "shuttle", SHUTTLE
    if "state-blind" in codes:
        return "state-blind", STATE_BLIND
    dynamic = (critic.get("stats") or {}).get("dynamic") or {}
    comps = dynamic.get("components") if isinstance(dynamic, dict) else None
    comps = comps if isinstance(comps, dict) else {}
    dominant = _DOMINANT.search(codes.get("dominant-component", ""))
    if dominant and constant(comps.get(dominant.group(1))):
        return "dominant-constant", f"critic: the constant component {dominant.group(1)!r} dominates the reward"
    sizes = {}
    for name, stats in comps.items():
        try:
            sizes[name] = float(stats["mean_abs"])
        except (KeyError, TypeError, ValueError):
            continue
    total = sum(v for v in sizes.values() if math.isfinite(v))
    flat = [n for n in sizes if constant(comps[n]) and sizes[n] > 0]
    share = sum(sizes[n] for n in flat) / total if total > 0 else 0.0
    if len(sizes) > 1 and share >= CONSTANT_SHARE:
        return (
            "constant-share",
            f"critic: constant term(s) {', '.join(flat)} carry {share:.0%} of the reward's magnitude",
        )
    return None


def tie_break_warning(critic: dict[str, Any] | None) -> str | None:
    """The structural warning the selection's tie-break weighs (a kind in `TIE_BREAK_KINDS`), or None."""
    found = structural_finding(critic)
    return found[1] if found and found[0] in TIE_BREAK_KINDS else None


def load_spread(run_dir: Path, spec: TaskSpec | None) -> SeedSpread:
    """A run's second-seed repeats (`seed_spread.json`), with the spec's calibration as the prior where it has one."""
    cal = spec.fresh_calibration if spec is not None else None
    return SeedSpread.load(run_dir / SPREAD_FILE, prior_sd(spec), cal.budget if cal is not None else None)


def load_evidence(folder: RunFolder, spec: TaskSpec | None = None) -> Evidence:
    """The run's evidence: its `seed_spread.json` (with the spec's calibration prior) and the tie-breaking structural
    warnings (`tie_break_warning`) of its designed and trained candidates' critic reports (verified; an unproven
    report gives no warning), rechecked on their first-cut screens (`Evidence.recheck`), so the cuts of the halving
    that is about to train them see them too."""
    if spec is None:
        try:
            spec = folder.spec()
        except RewardsmithError:
            spec = None  # a view of a folder whose task.toml is unreadable: no prior
    evidence, episodes = Evidence(load_spread(folder.path, spec)), {}
    for record in folder.candidates():
        if record.status not in ("designed", "trained"):
            continue
        cand = folder.cand_of(record)
        critic = cand.critic()
        warning = tie_break_warning(critic.model_dump() if critic is not None else None)
        if warning:
            evidence.warnings[record.id] = warning
            episodes[record.id] = (cand.rung_screen() or {}).get("details")
    evidence.recheck(episodes)
    return evidence
