"""Trusted scorers for Box2D and classic-control envs (stable-eureka's, Pendulum, Acrobot), from the env's own state.

These envs have no MuJoCo model, so a `State` holds only the observation. The scorers read the
simulator through `self.env`, the scorer-only accessor (`EpisodeScorer.bind_env`): reward code never
gets it. Success restates what "solved" means for each env in the peer's terms (stable-eureka judges a
policy by the benchmark env's return: BipedalWalker 300, LunarLander 200, MountainCarContinuous 90, the
Gymnasium "solved" thresholds); the fitness is a graded measure of the same behaviour, never the reward.
"""

from __future__ import annotations

import sys

import numpy as np

from rewardsmith.reward.fitness import EpisodeScorer
from rewardsmith.reward.state import State


def _env_module(env):
    return sys.modules[type(env).__module__]


class BipedalCourse(EpisodeScorer):
    """BipedalWalker: how much of the course the hull covers before it first touches the ground.

    Fitness: the hull's net advance along x, up to the first fall (or the end), as a fraction of the course
    from the start pad to the finish (-1 to 1; backwards is negative). Success: the walker reached the
    finish without a fall, the run that scores the env's "solved" 300 points.
    """

    def __init__(self) -> None:
        self.start_x = self.finish_x = 0.0
        self.best_x, self.fell = 0.0, False

    @property
    def unit(self) -> str:
        """Fitness unit and direction, as the designer is told it."""
        return "fraction (-1 to 1) of the course walked forward until the hull first touched the ground; higher is better"

    def reset(self, state: State) -> None:
        m = _env_module(self.env)
        self.start_x = float(m.TERRAIN_STARTPAD * m.TERRAIN_STEP)
        self.finish_x = float((m.TERRAIN_LENGTH - m.TERRAIN_GRASS) * m.TERRAIN_STEP)
        self.best_x, self.fell = self.start_x, False

    def step(self, state: State, action: np.ndarray, next_state: State) -> None:
        if self.fell:
            return
        self.fell = bool(self.env.game_over)
        self.best_x = float(self.env.hull.position[0])  # the position at the fall counts, later ones do not

    def result(self) -> tuple[float, bool]:
        span = self.finish_x - self.start_x
        fraction = float(np.clip((self.best_x - self.start_x) / span, -1.0, 1.0))
        return fraction, bool(not self.fell and self.best_x >= self.finish_x)

    def sparse_reward(self, state: State, action: np.ndarray, next_state: State) -> float:
        return float(not self.env.game_over and float(self.env.hull.position[0]) >= self.finish_x)


class LunarLanding(EpisodeScorer):
    """LunarLander: land at rest on the pad between the flags (the env's "landed" +100 event, needed for 200).

    Success: at the episode's end the lander is at rest (asleep), both legs on the ground, between the
    flags, not crashed. Fitness: 1.0 for that; else half of how close the final position is to the pad's
    centre (1 - distance/10 world units, at least 0), and 0 after a crash.
    """

    def __init__(self) -> None:
        self.crashed, self.landed, self.distance = False, False, 10.0

    @property
    def unit(self) -> str:
        """Fitness unit and direction, as the designer is told it."""
        return "0 to 1: 1.0 for landing at rest on the pad; else half of the closeness to the pad, 0 after a crash"

    def reset(self, state: State) -> None:
        self.crashed, self.landed, self.distance = False, False, 10.0

    def step(self, state: State, action: np.ndarray, next_state: State) -> None:
        env = self.env
        self.crashed = self.crashed or bool(env.game_over)
        pad_x, pad_y = (env.helipad_x1 + env.helipad_x2) / 2, env.helipad_y
        x, y = env.lander.position
        self.distance = float(np.hypot(x - pad_x, y - pad_y))
        on_pad = env.helipad_x1 <= x <= env.helipad_x2
        legs = all(leg.ground_contact for leg in env.legs)
        self.landed = bool(not env.lander.awake and legs and on_pad and not self.crashed)

    def result(self) -> tuple[float, bool]:
        if self.landed:
            return 1.0, True
        return (0.0 if self.crashed else 0.5 * max(0.0, 1.0 - self.distance / 10.0)), False

    def sparse_reward(self, state: State, action: np.ndarray, next_state: State) -> float:
        env = self.env
        on_pad = env.helipad_x1 <= env.lander.position[0] <= env.helipad_x2
        return float(on_pad and all(leg.ground_contact for leg in env.legs) and not env.game_over)


class MountainCarFlag(EpisodeScorer):
    """MountainCarContinuous and MountainCar-v0: reach the flag on the right hill (for the continuous car, the +100
    that "solved", return >= 90, needs).

    Reads the car's position from the env's own state (`env.state[0]`). Fitness: the highest position
    reached, as a fraction of the way from the valley floor (-0.52) to the flag (`env.goal_position`),
    capped at 1. Success: the car reached the flag.
    """

    VALLEY = -0.52

    def __init__(self) -> None:
        self.best = self.VALLEY
        self.goal = 0.45

    @property
    def unit(self) -> str:
        """Fitness unit and direction, as the designer is told it."""
        return "fraction (0 to 1) of the way from the valley floor up to the flag at the best moment; higher is better"

    def reset(self, state: State) -> None:
        self.goal = float(self.env.goal_position)
        self.best = float(self.env.state[0])

    def step(self, state: State, action: np.ndarray, next_state: State) -> None:
        self.best = max(self.best, float(self.env.state[0]))

    def result(self) -> tuple[float, bool]:
        fraction = (self.best - self.VALLEY) / (self.goal - self.VALLEY)
        return float(np.clip(fraction, 0.0, 1.0)), self.best >= self.goal

    def sparse_reward(self, state: State, action: np.ndarray, next_state: State) -> float:
        return float(self.env.state[0] >= self.goal)


class PendulumUpright(EpisodeScorer):
    """Pendulum: swing the pole up and hold it upright (theta = 0 is upright in Gymnasium's Pendulum), or at
    `target` rad from upright (positive: the way positive torque turns it).

    Reads the angle from the env's own state (`env.state[0]`, not wrapped). On target: within `tolerance` rad of
    it. Fitness: the fraction of the episode's steps that end on target. Success: on target at the end of each of
    the episode's last `hold` steps (a pole that spins through it is not held there).
    """

    def __init__(self, tolerance: float = 0.5, hold: int = 50, target: float = 0.0) -> None:
        self.cos_tolerance, self.tolerance, self.hold = float(np.cos(tolerance)), tolerance, hold
        self.target = float(target)
        self.steps = self.upright = self.run = 0

    @property
    def unit(self) -> str:
        """Fitness unit and direction, as the designer is told it."""
        where = f"theta = {self.target:+g} rad (0 = upright)" if self.target else "upright"
        return (
            f"0 to 1: the fraction of the episode's steps that end with the pole within {self.tolerance:g} rad of "
            f"{where}; higher is better"
        )

    def _is_upright(self) -> bool:
        return float(np.cos(self.env.state[0] - self.target)) >= self.cos_tolerance

    def reset(self, state: State) -> None:
        self.steps = self.upright = self.run = 0

    def step(self, state: State, action: np.ndarray, next_state: State) -> None:
        self.steps += 1
        up = self._is_upright()
        self.upright += up
        self.run = self.run + 1 if up else 0

    def result(self) -> tuple[float, bool]:
        return (self.upright / self.steps if self.steps else 0.0), self.run >= self.hold

    def sparse_reward(self, state: State, action: np.ndarray, next_state: State) -> float:
        return float(self._is_upright())


class PendulumSpin(EpisodeScorer):
    """Pendulum: spin the pole in the positive direction (theta increasing, the way positive torque turns it), over
    the top in full turns, and keep it turning.

    Reads the angle from the env's own state (`env.state[0]`, which Pendulum never wraps), so a turn is 2 pi of it.
    Fitness, 0 to 1: the episode's net turns in the positive direction as a fraction of `turns` (turning the other
    way scores 0). Success: at least `last_turns` turns in the positive direction over the episode's last `last`
    steps (of Pendulum's 200).
    """

    def __init__(self, turns: float = 8.0, last_turns: float = 3.0, last: int = 100, limit: int = 200) -> None:
        self.turns, self.last_turns, self.last, self.limit = turns, last_turns, last, limit
        self.angles: list[float] = []

    @property
    def unit(self) -> str:
        """Fitness unit and direction, as the designer is told it."""
        return (
            f"0 to 1: the episode's net turns in the positive direction (theta increasing) as a fraction of "
            f"{self.turns:g} turns; turning the other way scores 0; higher is better"
        )

    def reset(self, state: State) -> None:
        self.angles = [float(self.env.state[0])]

    def step(self, state: State, action: np.ndarray, next_state: State) -> None:
        self.angles.append(float(self.env.state[0]))

    def _turns(self, since: int) -> float:
        return (self.angles[-1] - self.angles[since]) / (2 * np.pi)

    def result(self) -> tuple[float, bool]:
        fitness = float(np.clip(self._turns(0) / self.turns, 0.0, 1.0))
        steps = len(self.angles) - 1
        return fitness, steps >= self.limit and self._turns(-1 - self.last) >= self.last_turns

    def sparse_reward(self, state: State, action: np.ndarray, next_state: State) -> float:
        rate = 2 * np.pi * self.last_turns / (self.last * float(self.env.dt))  # the mean speed success needs
        return float(float(self.env.state[1]) >= rate)


class AcrobotBar(EpisodeScorer):
    """Acrobot: swing the free end above the bar (one link length above the pivot) as fast as possible.

    Reads the angles from the env's own state (`env.state[:2]`). Height: the free end's height above the pivot,
    -cos(theta1) - cos(theta1 + theta2), from -2 (hanging) to 2; the env ends the episode above 1 (the bar).
    Fitness, 0 to 1: below 0.5, the highest the end got as a fraction of the way from hanging to the bar, halved;
    0.5 and above once it reached the bar, 0.5 + 0.5 x (1 - steps taken / `limit`), so a faster swing scores
    more. Success: the end reached the bar (what the env's own -1-a-step reward asks for, as fast as it can).
    """

    HANGING, BAR = -2.0, 1.0

    def __init__(self, limit: int = 500) -> None:
        self.limit = limit
        self.steps = 0
        self.best = self.HANGING

    @property
    def unit(self) -> str:
        """Fitness unit and direction, as the designer is told it."""
        return (
            "0 to 1; below 0.5: half the fraction of the way from hanging to the bar that the free end reached at "
            f"best; 0.5 + 0.5 x (1 - steps taken / {self.limit}) once it reaches the bar; higher is better"
        )

    def _height(self) -> float:
        theta1, theta2 = float(self.env.state[0]), float(self.env.state[1])
        return -np.cos(theta1) - np.cos(theta1 + theta2)

    def reset(self, state: State) -> None:
        self.steps, self.best = 0, self._height()

    def step(self, state: State, action: np.ndarray, next_state: State) -> None:
        if self.best <= self.BAR:
            self.steps += 1
            self.best = max(self.best, self._height())

    def result(self) -> tuple[float, bool]:
        if self.best > self.BAR:
            return 0.5 + 0.5 * max(0.0, 1.0 - self.steps / self.limit), True
        fraction = (self.best - self.HANGING) / (self.BAR - self.HANGING)
        return 0.5 * float(np.clip(fraction, 0.0, 1.0)), False

    def sparse_reward(self, state: State, action: np.ndarray, next_state: State) -> float:
        return float(self._height() > self.BAR)


class CartPoleSpot(EpisodeScorer):
    """CartPole: keep the pole up and bring the cart to a spot on the track, then hold it there.

    Reads the cart's position from the env's own state (`env.state[0]`). Fitness, 0 to 1: the fraction of the
    episode's `limit` steps that end with the cart within `tolerance` of `spot` (an episode that ends early, on a
    fall or off the track, counts its missing steps as away). Success: the episode lasts all `limit` steps and
    the cart is at the spot for each of the last `hold` of them.
    """

    def __init__(self, spot: float = 1.0, tolerance: float = 0.2, hold: int = 100, limit: int = 500) -> None:
        self.spot, self.tolerance, self.hold, self.limit = spot, tolerance, hold, limit
        self.steps = self.at_spot = self.run = 0

    @property
    def unit(self) -> str:
        """Fitness unit and direction, as the designer is told it."""
        return (
            f"0 to 1: the fraction of the episode's {self.limit} steps that end with the cart within "
            f"{self.tolerance:g} m of x = {self.spot:g} m (an episode that ends early counts the rest as away); "
            "higher is better"
        )

    def _at_spot(self) -> bool:
        return abs(float(self.env.state[0]) - self.spot) < self.tolerance

    def reset(self, state: State) -> None:
        self.steps = self.at_spot = self.run = 0

    def step(self, state: State, action: np.ndarray, next_state: State) -> None:
        self.steps += 1
        here = self._at_spot()
        self.at_spot += here
        self.run = self.run + 1 if here else 0

    def result(self) -> tuple[float, bool]:
        return self.at_spot / self.limit, self.steps >= self.limit and self.run >= self.hold

    def sparse_reward(self, state: State, action: np.ndarray, next_state: State) -> float:
        return float(self._at_spot())
