"""The shuttle check: does a reward pay more for going back and forth than for holding still?

A reward that pays each approach and lets retreats go free, pays each entry into a goal region, or pays speed in any
direction is farmed by shuttling: a policy moves to and fro instead of doing the task. At a short search budget such
a reward can rank with the good ones (fetch-reach's s9 and s14); the check sees the pattern on recorded states,
before any training. It runs in the critic's worker (`rewardsmith.workers.critic`) on its random-action rollouts:

- f_t, the reward of each recorded transition (state s_t to s_t+1, action a_t);
- b_t, the same transition played backwards (from s_t+1's positions to s_t's, same action), with each state's joint
  velocities negated in place: the first state carries -v_t, the next -v_t+1, so that a term linear in either
  state's velocity is paid exactly its negative (a true reversal would pair them the other way round, and a
  reward of the next state's velocity would then gain v_t+1 - v_t on every step of an accelerating rollout); the
  observations are recomputed by the env from those states (`Mirror`, built before lock-down);
- h_s, holding still at each state s (velocities zero, zero action, the state to itself).

A loop of n transitions from step i earns per step (sum f + sum b) / 2n; holding at its best state earns max h. For
each n in `LOOP_LENGTHS`, the mean over every start i of the difference; an episode's gain is the largest of these
means, in units of the reward's mean |f_t| (`episode_gains`). The reward is flagged when at least `MIN_SHARE` of the
episodes gain more than `MIN_GAIN` (`shuttle_message`). Taking the mean over starts, not the maximum, matters: a
reward of the next state's velocity is antisymmetric step by step, but a loop's sum telescopes to the velocity
difference of its two ends, and the maximum over loops picks the largest one (the first registered rule flagged 4
of 8 good halfcheetah-run-backward rewards for that).

Measured (`bench/replay_tables/README.md`, "A shuttle check", round 37): on the six labelled MuJoCo pools the
critic's check flagged 8 of 18 rewards labelled reward-hacking (progress with free retreats, an entry bonus, speed in
any direction, a wobble, a swing, a foot kick), none of 24 weak and none of 48 good ones; held out, none of the 35
shipped example rewards (`envs/examples/`). `bench/shuttle.py` runs the same rule on archived episodes. An env whose
observation is not a function of the state (the recomputed one differs from the recorded one by more than
`MATCH_TOLERANCE`: Ant's carries contact forces computed mid-step) or that has no MuJoCo model is not judged: 25 of
the 35 shipped tasks are.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from rewardsmith.reward.state import Snapshotter, State

LOOP_LENGTHS = (1, 2, 4, 8, 16, 32)
MIN_GAIN = 0.05
"""An episode pays for shuttling when a loop out-earns holding still by this fraction of the reward's mean |step|."""
MIN_SHARE = 0.25
"""The share of the judged episodes that must pay for shuttling before the reward is flagged."""
MATCH_TOLERANCE = 0.05
"""How far (absolute and relative) the env's recomputed observation of a recorded state may be from the recorded one:
Gymnasium's MuJoCo envs read positions one physics substep stale (up to 0.012 on Pusher), the recomputation fresh."""


@dataclass
class Mirror:
    """One rollout's transitions played backwards (`backward[t]`: the (state, next_state) of transition t reversed,
    module docstring) and its states held still (`still[s]`: velocities zero), frozen; `first` is the index of the
    rollout's first transition among the critic's, `hold` the action of holding still (the env's neutral action, as
    the reward gets it)."""

    first: int
    backward: list[tuple[State, State]]
    still: list[State]
    hold: np.ndarray

    @property
    def steps(self) -> int:
        """Transitions in the rollout."""
        return len(self.backward)


@dataclass(frozen=True)
class Recorded:
    """One live state of a rollout, as recorded: what the simulator held, and the observation the env returned."""

    qpos: np.ndarray
    qvel: np.ndarray
    time: float
    mocap_pos: np.ndarray | None
    mocap_quat: np.ndarray | None
    obs: Any


class Mirrorer:
    """Builds `Mirror`s from the live env, before lock-down: `record` each state of a rollout as it is snapshotted,
    then `mirror` them once the rollout ends (before the env is reset), or None where the env cannot recompute its
    observation from a state. `recomputed` and `build` do the same for states recorded elsewhere (`bench/shuttle.py`
    feeds them archived episodes).

    An env that stacks the previous frame into its observation (Meta-World: `_prev_obs`, from
    `_get_curr_obs_combined_no_goal`) gets each state's previous frame from the state before it in the order played:
    the recorded one forward, the later one backwards, its own when held still (as after a reset)."""

    def __init__(self, env, snap: Snapshotter) -> None:
        self.base, self.snap = env.unwrapped, snap
        self.data = snap.data
        self.get_obs: Callable[[], Any] | None = getattr(self.base, "_get_obs", None)
        self.frame: Callable[[], Any] | None = getattr(self.base, "_get_curr_obs_combined_no_goal", None)
        self.stacked = callable(self.frame) and hasattr(self.base, "_prev_obs")
        self.usable = self.data is not None and callable(self.get_obs)
        self._recorded: list[Recorded] = []

    def record(self, obs: Any) -> None:
        """Keep the live state (and the observation the env returned for it)."""
        if not self.usable:
            return
        d = self.data
        assert d is not None
        pos, quat = (d.mocap_pos.copy(), d.mocap_quat.copy()) if d.mocap_pos.size else (None, None)
        self._recorded.append(Recorded(d.qpos.copy(), d.qvel.copy(), float(d.time), pos, quat, obs))

    def mirror(self, first: int, hold: np.ndarray) -> Mirror | None:
        """The recorded rollout's transitions played backwards and its states held still (it forgets the rollout);
        None if it cannot."""
        rec, self._recorded = self._recorded, []
        if not self.usable or len(rec) < 2:
            return None
        if not all(matches(obs, r.obs) for obs, r in zip(self.recomputed(rec), rec)):
            self.usable = False  # the observation is not a function of the state: nothing is judged
            return None
        return self.build(rec, first, hold)

    def recomputed(self, rec: Sequence[Recorded]) -> list[Any]:
        """The env's observation of each recorded state, recomputed from it (to compare with the recorded one)."""
        return [self._observe(r, r.qvel, rec[s - 1] if s else None) for s, r in enumerate(rec)]

    def build(self, rec: Sequence[Recorded], first: int, hold: np.ndarray) -> Mirror:
        """The `Mirror` of a rollout's recorded states (at least two), its first transition at index `first`."""
        still = [self._state(r, np.zeros_like(r.qvel), None) for r in rec]
        backward = [
            (
                self._state(rec[t + 1], -rec[t].qvel, rec[t + 2] if t + 2 < len(rec) else None),
                self._state(rec[t], -rec[t + 1].qvel, rec[t + 1]),
            )
            for t in range(len(rec) - 1)
        ]
        return Mirror(first, backward, still, hold)

    def _state(self, at: Recorded, qvel: np.ndarray, previous: Recorded | None) -> State:
        """A frozen State at a recorded state's positions with the given joint velocities."""
        state = self.snap(self._observe(at, qvel, previous))
        state.freeze()
        return state

    def _observe(self, at: Recorded, qvel: np.ndarray, previous: Recorded | None) -> Any:
        """The env's observation of `at`'s positions with velocities `qvel` (and, for a frame-stacking env, the
        frame of `previous`, else its own), in the recorded observation's form and dtype."""
        assert self.get_obs is not None
        if self.stacked:
            assert self.frame is not None
            self._set(previous or at, (previous or at).qvel)
            self.base._prev_obs = np.array(self.frame())
        self._set(at, qvel)
        obs, like = self.get_obs(), at.obs
        if isinstance(like, dict):
            if not isinstance(obs, dict):
                return obs
            return {k: np.asarray(v, dtype=np.asarray(like[k]).dtype) for k, v in obs.items() if k in like} | {
                k: v for k, v in obs.items() if k not in like
            }
        return np.asarray(obs, dtype=np.asarray(like).dtype)

    def _set(self, at: Recorded, qvel: np.ndarray) -> None:
        """Put the simulator at `at`'s positions with velocities `qvel`, its derived quantities computed."""
        import mujoco

        d = self.data
        assert d is not None
        d.qpos[:], d.qvel[:], d.time = at.qpos, qvel, at.time
        if at.mocap_pos is not None:
            d.mocap_pos[:], d.mocap_quat[:] = at.mocap_pos, at.mocap_quat
        mujoco.mj_forward(self.base.model, d)
        mujoco.mj_rnePostConstraint(self.base.model, d)  # contact forces, which Ant's observation carries


def matches(recomputed: Any, recorded: Any) -> bool:
    """True when the recomputed observation has the recorded one's form and values (within `MATCH_TOLERANCE`)."""
    if isinstance(recorded, dict):
        if not isinstance(recomputed, dict) or set(recomputed) != set(recorded):
            return False
        return all(matches(recomputed[k], recorded[k]) for k in recorded)
    a, b = np.asarray(recomputed, dtype=float), np.asarray(recorded, dtype=float)
    return a.shape == b.shape and bool(np.allclose(a, b, rtol=MATCH_TOLERANCE, atol=MATCH_TOLERANCE))


def rewards_of(
    reward_fn, transitions: Sequence[tuple[State, np.ndarray, State]], mirror: Mirror
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(f, b, h) of one mirrored rollout: the reward's totals forward, backward and holding still. Raises what the
    reward raises (the critic has already called it on every forward transition)."""
    steps = transitions[mirror.first : mirror.first + mirror.steps]
    f = np.array([float(reward_fn(*t)[0]) for t in steps])
    b = np.array([float(reward_fn(back[0], t[1], back[1])[0]) for back, t in zip(mirror.backward, steps)])
    h = np.array([float(reward_fn(s, mirror.hold, s)[0]) for s in mirror.still])
    return f, b, h


def loop_gain(f: np.ndarray, b: np.ndarray, h: np.ndarray) -> float:
    """The largest, over loop lengths, mean over starts of (loop per step - best hold on the loop), unscaled; -inf
    for an empty rollout."""
    steps, best = len(f), -np.inf
    cf = np.concatenate(([0.0], np.cumsum(f)))
    cb = np.concatenate(([0.0], np.cumsum(b)))
    for n in LOOP_LENGTHS:
        if n > steps:
            break
        starts = np.arange(steps - n + 1)
        loop = (cf[starts + n] - cf[starts] + cb[starts + n] - cb[starts]) / (2 * n)
        held = np.lib.stride_tricks.sliding_window_view(h, n + 1).max(axis=1)
        best = max(best, float(np.mean(loop - held)))
    return best


def episode_gains(episodes: Sequence[tuple[np.ndarray, np.ndarray, np.ndarray]]) -> list[float]:
    """Each episode's loop gain in units of the reward's mean |f| over all of them (a reward that is zero on every
    forward transition gains nothing)."""
    forward = np.concatenate([f for f, _, _ in episodes]) if episodes else np.zeros(0)
    scale = float(np.mean(np.abs(forward))) if forward.size else 0.0
    if not np.isfinite(scale) or scale <= 1e-12:
        return [0.0 for _ in episodes]
    return [loop_gain(f, b, h) / scale for f, b, h in episodes]


def shuttle_message(episodes: Sequence[tuple[np.ndarray, np.ndarray, np.ndarray]]) -> str | None:
    """Why the reward pays for shuttling (module docstring), or None."""
    gains = [g for g in episode_gains(episodes) if np.isfinite(g)]
    paying = [g for g in gains if g > MIN_GAIN]
    if not gains or len(paying) < MIN_SHARE * len(gains):
        return None
    return (
        f"it pays more for moving back and forth than for holding still: on {len(paying)} of {len(gains)} "
        f"random-action rollouts, going forward and back over the same states earned up to {max(paying):.2g} x the "
        "reward's mean |step| more per step than holding at the best of those states. A policy can farm it by "
        "shuttling; pay for where the task's state is (or its progress with retreats charged alike), not for motion"
    )
