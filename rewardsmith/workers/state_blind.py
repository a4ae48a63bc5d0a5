"""A reward that, on the critic's real states, depends on the action alone: it cannot measure the task.

A shipped example moved to another robot (ant-spin's upright window of 0.2-1.0 m on a hopper whose torso rides at
1.25 m) or a term gated on an outcome random actions never reach leaves only the action's own terms varying: the
policy can learn nothing but an action pattern, usually "do nothing". The critic tells it this way: each sampled
transition's action is scored again on another transition's states; if no total changes, the reward reads no
state that varies here. A warning, not a rejection: a gate that opens only after training has found something is
a design choice, but the designer should know that random play never opens it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rewardsmith.stats import is_constant

PROBES = 64
"""Transitions whose action is scored again on another transition's states (spread over the sample)."""
TOLERANCE = 1e-9


def state_blind_message(reward_fn, transitions: list[tuple[Any, Any, Any]], components: dict[str, dict]) -> str:
    """The warning when the reward's total is unchanged on every probe with the states swapped (the action kept),
    naming the components that never change; "" when the total depends on the state, or when it cannot be told
    (the reward raised or returned a non-finite total)."""
    n = len(transitions)
    if n < 2:
        return ""
    probes = np.unique(np.linspace(0, n - 1, min(PROBES, n)).astype(int))
    for i in probes:
        state, action, next_state = transitions[i]
        other, _, other_next = transitions[(i + n // 2) % n]
        try:
            own = float(reward_fn(state, action, next_state)[0])
            swapped = float(reward_fn(other, action, other_next)[0])
        except Exception:  # noqa: BLE001 - untrusted code: no verdict
            return ""
        if not (np.isfinite(own) and np.isfinite(swapped)) or abs(own - swapped) > TOLERANCE * max(1.0, abs(own)):
            return ""  # no verdict, or the state counts
    still = sorted(name for name, stats in components.items() if is_constant(stats["std"], stats["mean"]))
    named = f" ({', '.join(repr(s) for s in still)} never change)" if still else ""
    return (
        f"on all {len(probes)} probed transitions the total depends on the action alone: scored again on another "
        f"transition's states it did not change, so no term that reads the state varies on random or idle play"
        f"{named}. Trained on this, a policy learns an action pattern (usually: do nothing), not the task. Check "
        "each term's conditions and thresholds against this env's description (a height window, a contact, a "
        "distance); a term that pays only after an outcome random actions never reach gives no signal until then"
    )
