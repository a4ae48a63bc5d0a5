"""Trusted fitness for the starter suite: a few general episode scorers, parameterised by spec kwargs.

Scorers are ground truth, never shown to the LLM, and never read the env's own reward. They read
bodies only from the newest snapshot (`state` in `reset`, `next_state` in `step` and `sparse_reward`)
and cache what they need, so they work with states that were frozen before the simulator moved on.
Time-based fitness is divided by the nominal episode length (`episode_steps`), not the elapsed one,
so an episode that ends early (a fall) cannot score well by being short.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from rewardsmith.reward.fitness import EpisodeScorer
from rewardsmith.reward.state import State

TURN = 2.0 * math.pi


def is_upright(state: State, body: str, min_height: float | None = None, max_tilt: float | None = None) -> bool:
    """Body origin at least `min_height` m high and its up axis within `max_tilt` rad of vertical."""
    b = state.body(body)
    if min_height is not None and b.pos[2] < min_height:
        return False
    return max_tilt is None or b.xmat[2, 2] >= math.cos(max_tilt)


def yaw(state: State, body: str) -> float:
    """Heading (rad) of the body's x axis in the world xy-plane."""
    w, x, y, z = state.body(body).quat
    return math.atan2(2.0 * (w * z + x * y), 1.0 - 2.0 * (y * y + z * z))


def wrap(angle: float) -> float:
    """Angle wrapped to [-pi, pi)."""
    return (angle + math.pi) % TURN - math.pi


class ForwardProgress(EpisodeScorer):
    """Mean speed (m/s) of `body` along world `axis` (`sign=-1`: backward) over the nominal episode.

    Displacement counts until the body first falls (origin below `min_height` m or tilted more than
    `max_tilt` rad); after a fall nothing more counts. Success: fitness >= `success_speed`, never fell.
    """

    def __init__(self, body: str = "torso", axis: int = 0, sign: int = 1, success_speed: float = 1.0,
                 min_height: float | None = None, max_tilt: float | None = None, episode_steps: int = 1000) -> None:
        self.body, self.axis, self.sign, self.success_speed = body, axis, sign, success_speed
        self.min_height, self.max_tilt, self.episode_steps = min_height, max_tilt, episode_steps

    @property
    def unit(self) -> str:
        """Fitness unit and direction, as the designer is told it."""
        way = f"{'+' if self.sign > 0 else '-'}{'xyz'[self.axis]}"
        falls = [f"its origin below {self.min_height} m"] if self.min_height is not None else []
        falls += [f"tilted more than {self.max_tilt} rad"] if self.max_tilt is not None else []
        rule = f" ({' or '.join(falls)})" if falls else ""
        return (
            f"m/s: mean speed of `{self.body}` along {way} over the nominal {self.episode_steps}-step episode, "
            f"counted until the first fall{rule}; higher is better"
        )

    def _healthy(self, state: State) -> bool:
        return is_upright(state, self.body, self.min_height, self.max_tilt)

    def reset(self, state: State) -> None:
        self._start = self._reached = float(state.body(self.body).pos[self.axis])
        self._dt, self._steps, self._fell = state.dt, 0, False

    def step(self, state: State, action: np.ndarray, next_state: State) -> None:
        self._steps += 1
        if self._fell:
            return
        if not self._healthy(next_state):
            self._fell = True
            return
        self._reached = float(next_state.body(self.body).pos[self.axis])

    def result(self) -> tuple[float, bool]:
        duration = max(self._steps, self.episode_steps) * self._dt
        speed = self.sign * (self._reached - self._start) / duration if duration > 0 else 0.0
        return float(speed), bool(speed >= self.success_speed and not self._fell)

    def sparse_reward(self, state: State, action: np.ndarray, next_state: State) -> float:
        fast = self.sign * next_state.body(self.body).linvel[self.axis] >= self.success_speed
        return float(fast and self._healthy(next_state))


class FinalDistance(EpisodeScorer):
    """Minus the distance (m) between bodies `point` and `target` over `axes` at the episode's end.

    Success: that final distance is below `success_distance`.
    """

    def __init__(self, point: str, target: str, success_distance: float, axes: Sequence[int] = (0, 1, 2)) -> None:
        self.point, self.target, self.success_distance = point, target, success_distance
        self.axes = list(axes)

    @property
    def unit(self) -> str:
        """Fitness unit and direction, as the designer is told it."""
        axes = "".join("xyz"[a] for a in self.axes)
        return (
            f"m: minus the {axes}-distance between `{self.point}` and `{self.target}` at the episode's end; "
            "higher (closer to 0) is better"
        )

    def _distance(self, state: State) -> float:
        gap = state.body(self.point).pos - state.body(self.target).pos
        return float(np.linalg.norm(gap[self.axes]))

    def reset(self, state: State) -> None:
        self._final = self._distance(state)

    def step(self, state: State, action: np.ndarray, next_state: State) -> None:
        self._final = self._distance(next_state)

    def result(self) -> tuple[float, bool]:
        return -self._final, self._final < self.success_distance

    def sparse_reward(self, state: State, action: np.ndarray, next_state: State) -> float:
        return float(self._distance(next_state) < self.success_distance)


class Balance(EpisodeScorer):
    """Fraction of the nominal episode during which `site` stays at least `min_height` m high.

    Success: the fraction reaches `success_fraction`.
    """

    def __init__(self, site: str, min_height: float, success_fraction: float = 0.99, episode_steps: int = 1000) -> None:
        self.site, self.min_height = site, min_height
        self.success_fraction, self.episode_steps = success_fraction, episode_steps

    @property
    def unit(self) -> str:
        """Fitness unit and direction, as the designer is told it."""
        return (
            f"fraction (0 to 1) of the nominal {self.episode_steps}-step episode with site `{self.site}` above "
            f"{self.min_height:g} m; higher is better"
        )

    def _up(self, state: State) -> bool:
        return bool(state.site(self.site).pos[2] > self.min_height)

    def reset(self, state: State) -> None:
        self._steps = self._up_steps = 0

    def step(self, state: State, action: np.ndarray, next_state: State) -> None:
        self._steps += 1
        self._up_steps += self._up(next_state)

    def result(self) -> tuple[float, bool]:
        fraction = self._up_steps / max(self._steps, self.episode_steps)
        return fraction, fraction >= self.success_fraction

    def sparse_reward(self, state: State, action: np.ndarray, next_state: State) -> float:
        return float(self._up(next_state))


class Backflip(EpisodeScorer):
    """Backward flips landed upright, read from the unwrapped pitch hinge `pitch_joint`.

    A flip counts once the body is upright again (origin >= `min_height` m, pitch within `max_tilt`
    of a whole turn) for `hold_s` seconds. Fitness = landed flips + half the furthest backward rotation
    (in turns) reached beyond them, capped below 0.5, so attempts rank below any landed flip.
    `backward` is the sign of the joint angle for a backward rotation. Success: >= 1 flip landed.
    """

    def __init__(self, body: str = "torso", pitch_joint: str = "rooty", backward: int = -1, min_height: float = 1.0,
                 max_tilt: float = 0.5, hold_s: float = 0.2) -> None:
        self.body, self.pitch_joint, self.backward = body, pitch_joint, backward
        self.min_height, self.max_tilt, self.hold_s = min_height, max_tilt, hold_s

    @property
    def unit(self) -> str:
        """Fitness unit and direction, as the designer is told it."""
        return (
            "backward flips landed upright (a count), plus half of any further backward rotation reached "
            "(in turns, below 0.5); higher is better"
        )

    def _turns(self, state: State) -> float:
        return self.backward * state.joint(self.pitch_joint).qpos / TURN

    def _landed_turns(self, state: State) -> int | None:
        """Whole backward turns if the body is upright now, else None."""
        turns = self._turns(state)
        upright = abs(wrap(turns * TURN)) <= self.max_tilt and state.body(self.body).pos[2] >= self.min_height
        return round(turns) if upright else None

    def reset(self, state: State) -> None:
        self._dt = state.dt
        self._peak = self._turns(state)
        self._landed, self._held, self._holding = 0, 0, None

    def step(self, state: State, action: np.ndarray, next_state: State) -> None:
        self._peak = max(self._peak, self._turns(next_state))
        turns = self._landed_turns(next_state)
        self._held = self._held + 1 if turns is not None and turns == self._holding else 0
        self._holding = turns
        if turns is not None and self._held * self._dt >= self.hold_s - 1e-9:
            self._landed = max(self._landed, turns)

    def result(self) -> tuple[float, bool]:
        attempt = min(max(self._peak - self._landed, 0.0), 0.999)
        return self._landed + 0.5 * attempt, self._landed >= 1

    def sparse_reward(self, state: State, action: np.ndarray, next_state: State) -> float:
        turns = self._landed_turns(next_state)
        return float(turns is not None and turns >= 1)


class SpinInPlace(EpisodeScorer):
    """Net yaw rotation (turns) of `body`, counted only while upright and near where it started.

    Yaw increments count on steps where the body is tilted at most `max_tilt` rad and its origin is
    within `max_drift` m (horizontally) of its start, so rolling or wandering off earns nothing.
    `direction` 0 takes either way (absolute value), +1 counter-clockwise only, -1 clockwise only.
    Success: fitness >= `success_turns`.
    """

    def __init__(self, body: str = "torso", success_turns: float = 5.0, max_drift: float = 1.0, max_tilt: float = 1.0,
                 direction: int = 0, episode_steps: int = 1000) -> None:
        self.body, self.success_turns, self.max_drift, self.max_tilt = body, success_turns, max_drift, max_tilt
        self.direction, self.episode_steps = direction, episode_steps

    @property
    def unit(self) -> str:
        """Fitness unit and direction, as the designer is told it."""
        way = {0: "either way", 1: "counter-clockwise seen from above", -1: "clockwise seen from above"}
        return (
            f"turns (1 turn = 2*pi rad) of yaw rotation of `{self.body}`, {way[self.direction]}, counted only "
            "while upright and near the start; higher is better"
        )

    def _counts(self, state: State, origin: np.ndarray) -> bool:
        near = np.linalg.norm(state.body(self.body).pos[:2] - origin) <= self.max_drift
        return bool(near and is_upright(state, self.body, max_tilt=self.max_tilt))

    def _signed(self, turns: float) -> float:
        return abs(turns) if self.direction == 0 else max(self.direction * turns, 0.0)

    def reset(self, state: State) -> None:
        self._origin = state.body(self.body).pos[:2].copy()
        self._yaw, self._turned = yaw(state, self.body), 0.0

    def step(self, state: State, action: np.ndarray, next_state: State) -> None:
        now = yaw(next_state, self.body)
        if self._counts(next_state, self._origin):
            self._turned += wrap(now - self._yaw)
        self._yaw = now

    def result(self) -> tuple[float, bool]:
        turns = self._signed(self._turned / TURN)
        return turns, turns >= self.success_turns

    def sparse_reward(self, state: State, action: np.ndarray, next_state: State) -> float:
        rate_needed = self.success_turns * TURN / (self.episode_steps * next_state.dt)
        rate = next_state.body(self.body).angvel[2]
        fast = self._signed(rate) >= rate_needed
        return float(fast and self._counts(next_state, np.zeros(2)))


class StandOnOneLeg(EpisodeScorer):
    """Fraction of the nominal episode spent standing still on exactly one foot.

    A step counts when `body` is upright (origin >= `min_height` m, tilt <= `max_tilt` rad), moves
    slower than `max_speed` m/s horizontally, and of the two `feet` bodies one is at least
    `lift_height` m high while the other is at most `ground_height` m high. Success: fraction >=
    `success_fraction`.
    """

    def __init__(self, feet: Sequence[str], body: str = "torso", min_height: float = 1.0, max_tilt: float = 0.5,
                 lift_height: float = 0.15, ground_height: float = 0.05, max_speed: float = 0.5,
                 success_fraction: float = 0.5, episode_steps: int = 1000) -> None:
        if len(feet) != 2:
            raise TypeError(f"StandOnOneLeg needs exactly two feet, got {list(feet)}")
        self.feet, self.body, self.min_height, self.max_tilt = list(feet), body, min_height, max_tilt
        self.lift_height, self.ground_height, self.max_speed = lift_height, ground_height, max_speed
        self.success_fraction, self.episode_steps = success_fraction, episode_steps

    @property
    def unit(self) -> str:
        """Fitness unit and direction, as the designer is told it."""
        return (
            f"fraction (0 to 1) of the nominal {self.episode_steps}-step episode spent standing still on one "
            "foot; higher is better"
        )

    def _one_leg(self, state: State) -> bool:
        if not is_upright(state, self.body, self.min_height, self.max_tilt):
            return False
        if np.linalg.norm(state.body(self.body).linvel[:2]) > self.max_speed:
            return False
        low, high = sorted(state.body(foot).pos[2] for foot in self.feet)
        return bool(low <= self.ground_height and high >= self.lift_height)

    def reset(self, state: State) -> None:
        self._steps = self._good = 0

    def step(self, state: State, action: np.ndarray, next_state: State) -> None:
        self._steps += 1
        self._good += self._one_leg(next_state)

    def result(self) -> tuple[float, bool]:
        fraction = self._good / max(self._steps, self.episode_steps)
        return fraction, fraction >= self.success_fraction

    def sparse_reward(self, state: State, action: np.ndarray, next_state: State) -> float:
        return float(self._one_leg(next_state))
