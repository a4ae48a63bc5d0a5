"""The joint table of a hand (more than `COMPACT_JOINTS` joints), grouped by finger: a finger's joints share a name
stem (`FFJ3` ... `FFJ0`) and consecutive indices, so they are written once as `FFJ{3, 2, 1, 0} [6:10]`, members
with the same facts share one entry, and fingers whose facts are all the same point at the first one's entries.
Every joint's index, range, control range (where it differs from the range) and axis stays derivable; the
section's heading says how to read the table. Used by `rewardsmith.stages.env_joints`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rewardsmith.stages.obs_labels import fmt, value_range

STEM = re.compile(r"^(.+?)([0-9xyz])$")
"""A chain member's name: a stem and a one-character position in its chain (a finger's joint number, an axis)."""

QVEL = " (qvel the same unless given)"
"""The heading's words for joints whose qvel index differs (free joints); left out where there are none."""
HEADING = (
    "## Joints (hinges unless marked; `FFJ{3, 2} [i:j]: 3: ..; 2: ..` = FFJ3, FFJ2 at qpos[i:j] (qvel the same"
    " unless given) and their facts; range: rad, m for slides, ±a = [-a, a]; ctrl: the actuator's control range"
    " where it differs (`~`: the range to 2 significant digits); axis: a key letter, or body-frame axis -> world"
    " direction at the reset pose; `+z to +y`: a positive value turns world +z toward +y (right-hand rule); a"
    " positive slide moves along it)"
)


@dataclass(frozen=True)
class Joint:
    """One joint's facts as the table writes them."""

    name: str
    qpos: int
    index: str  # "[6]", or "[24:31], qvel[24:30]"
    facts: str  # "[0, 1.571] ctrl [0, 1.6] A", with "slide " or "free " in front when not a hinge
    chained: bool  # a one-dof joint whose qvel index is its qpos index


def braced(names: list[str]) -> str:
    """Names as a comma list, runs of consecutive names that share a stem written once as `Stem{a, b}`."""
    parts: list[tuple[str, list[str]]] = []
    for name in names:
        match = STEM.match(name)
        stem, tail = (match.group(1), match.group(2)) if match else (name, "")
        if parts and tail and parts[-1][0] == stem and parts[-1][1][-1]:
            parts[-1][1].append(tail)
        else:
            parts.append((stem, [tail]))
    return ", ".join(f"{s}{{{', '.join(t)}}}" if len(t) > 1 else s + t[0] for s, t in parts)


def _chains(joints: list[Joint]) -> list[list[Joint]]:
    """Maximal runs of consecutive one-dof joints with one stem and consecutive qpos indices; others alone."""
    runs: list[list[Joint]] = []
    for joint in joints:
        match = STEM.match(joint.name) if joint.chained else None
        last = runs[-1][-1] if runs else None
        if (
            match
            and last is not None
            and last.chained
            and (prev := STEM.match(last.name))
            and prev.group(1) == match.group(1)
            and joint.qpos == last.qpos + 1
        ):
            runs[-1].append(joint)
        else:
            runs.append([joint])
    return runs


def _members(chain: list[Joint]) -> str:
    """`3: facts; 2, 1, 0: facts`: the chain's joints by their last character, those with the same facts once."""
    groups: dict[str, list[str]] = {}
    for joint in chain:
        groups.setdefault(joint.facts, []).append(joint.name[-1])
    return "; ".join(f"{', '.join(tails)}: {facts}" for facts, tails in groups.items())


def span(lo: float, hi: float) -> str:
    """A range as the table writes it: `±a` when symmetric about 0, else `[lo, hi]`."""
    return f"±{fmt(hi)}" if lo == -hi and hi > 0 else value_range(lo, hi)


def short_vector(v) -> str:
    """A world direction rounded to 2 decimals, trailing zeros cut: `(0.82, 0.5, 0)`."""
    return "(" + ", ".join(f"{round(float(c), 2) + 0.0:g}" for c in v) + ")"


def _indices(chain: list[Joint]) -> str:
    return chain[0].index if len(chain) == 1 else f"[{chain[0].qpos}:{chain[-1].qpos + 1}]"


def _ends_as(longer: tuple[str, ...] | None, shorter: tuple[str, ...] | None) -> bool:
    """Whether a chain's facts end with all of a shorter chain's, member for member."""
    if not longer or not shorter or len(longer) <= len(shorter):
        return False
    return longer[-len(shorter) :] == shorter


def _shared_words(facts: list[str]) -> str:
    """The leading words every member's facts share (`slide unlimited `), when each has more after them."""
    words = [f.split(" ") for f in facts]
    n = 0
    while all(len(w) > n + 1 and w[n] == words[0][n] for w in words):
        n += 1
    return " ".join(words[0][:n]) + " " if n else ""


def chain_lines(joints: list[Joint]) -> list[str]:
    """The table's lines: one per chain; a chain whose facts repeat an earlier chain's, member for member, is
    named on that chain's line instead of getting its own."""
    runs = _chains(joints)
    signature = [tuple(j.facts for j in run) if len(run) > 1 else None for run in runs]
    lines: list[str] = []
    done: set[int] = set()
    for i, run in enumerate(runs):
        if i in done:
            continue
        if len(run) == 1:
            lines.append(f"- {run[0].name} {run[0].index} {run[0].facts}")
            continue
        same = [k for k in range(i + 1, len(runs)) if signature[k] == signature[i]]
        done.update(same)
        head = f"- {braced([j.name for j in run])} {_indices(run)}"
        earlier = next((runs[k] for k in range(i) if _ends_as(signature[i], signature[k])), None)
        if earlier is not None:  # a finger with one more joint at its base than an earlier one
            extra = run[: len(run) - len(earlier)]
            line = f"{head}: {_members(extra)}; then as {braced([j.name for j in earlier])}"
        else:
            shared = _shared_words([j.facts for j in run])
            cut = [Joint(j.name, j.qpos, j.index, j.facts[len(shared) :].lstrip(), j.chained) for j in run]
            line = f"{head}{' ' + shared.rstrip() if shared else ''}: {_members(cut)}"
        if same:
            others = [f"{braced([j.name for j in runs[k]])} {_indices(runs[k])}" for k in same]
            line += "; likewise " + ", ".join(others)
        lines.append(line)
    return lines
