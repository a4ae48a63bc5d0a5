"""Trusted scorers for manipulation tasks: Meta-World v3, Fetch, Adroit and Shadow Hand (Gymnasium-Robotics).

Every scorer reads only `State` snapshots (observation, goal parts, named sites, joints): never the env's
reward or `info`. The success rules restate each benchmark's own (cited per class), so that a success here
is a success there; `tests/test_families.py` checks that against Meta-World's flag on recorded episodes, and
against Gymnasium-Robotics' own flags (Fetch, Adroit, Shadow Hand) on a solved and a random episode.
"""

from __future__ import annotations

import numpy as np

from rewardsmith.reward.fitness import EpisodeScorer
from rewardsmith.reward.state import State

# Meta-World v3's 39-dim observation: hand (TCP centre), gripper opening, object 1 pos/quat, object 2 pos/quat,
# the same 18 values one step earlier, then the goal position.
MW_HAND, MW_OBJECT, MW_GOAL = slice(0, 3), slice(4, 7), slice(36, 39)
MW_POINT_WORDS = {"hand": "hand (obs[0:3])", "object": "object (obs[4:7])", "tcp": "fingertips' centre"}
AXIS_NAMES = "xyz"


class MetaWorldGoal(EpisodeScorer):
    """Meta-World: bring a point (`hand`: obs[0:3]; `tcp`: the fingertips' centre; `object`: obs[4:7]; or a
    named site) to the task's goal (obs[36:39]).

    The distance is `norm(weights * (point - goal)[axes])`, exactly as the v3 env's `evaluate_state` forms
    it for its `success` flag (e.g. push: object within 0.05 m; door-open: |x| within 0.08 m). Success as
    Meta-World's evaluations count it: the criterion held at some step of the episode. Fitness: the best
    fraction of the initial distance closed (0 to 1), and exactly 1.0 once the task succeeded.
    """

    def __init__(
        self,
        point: str = "object",
        success_distance: float = 0.05,
        axes: list[int] | None = None,
        weights: list[float] | None = None,
    ) -> None:
        self.point, self.success_distance = point, success_distance
        self.axes = list(axes) if axes is not None else [0, 1, 2]
        self.weights = np.asarray(weights if weights is not None else [1.0] * len(self.axes), dtype=float)
        self.succeeded_now = False

    @property
    def unit(self) -> str:
        """Fitness unit and direction, as the designer is told it, from this scorer's own point, axes and
        weights (door-open measures along x only; peg-insert-side weights y and z twice)."""
        point = MW_POINT_WORDS.get(self.point, f"site `{self.point}`")
        return (
            f"fraction (0 to 1) of the initial {self.measure()} from the {point} to the goal (obs[36:39]) closed "
            f"at the best step; 1.0 once that distance came within {self.success_distance:g} m; higher is better"
        )

    def measure(self) -> str:
        """What `distance` measures, in words: "distance", "distance along x", "weighted distance sqrt(...)"."""
        names = [AXIS_NAMES[a] for a in self.axes]
        along = "" if self.axes == [0, 1, 2] else " along " + " and ".join(names)
        if np.all(self.weights == 1.0):
            return f"distance{along}"
        terms = " + ".join(f"({w:g} d{n})^2" if w != 1.0 else f"d{n}^2" for w, n in zip(self.weights, names))
        return f"weighted distance{along} sqrt({terms})"

    def _point(self, state: State) -> np.ndarray:
        if self.point == "hand":
            return state.obs[MW_HAND]
        if self.point == "tcp":  # the fingertips' centre, as Meta-World's `tcp_center`
            return 0.5 * (state.site("rightEndEffector").pos + state.site("leftEndEffector").pos)
        if self.point == "object":
            return state.obs[MW_OBJECT]
        return state.site(self.point).pos

    def distance(self, state: State) -> float:
        """The success distance of one snapshot."""
        gap = (self._point(state) - state.obs[MW_GOAL])[self.axes]
        return float(np.linalg.norm(self.weights * gap))

    def reset(self, state: State) -> None:
        self.start = max(self.distance(state), 1e-6)
        self.best, self.success, self.succeeded_now = 0.0, False, False

    def step(self, state: State, action: np.ndarray, next_state: State) -> None:
        d = self.distance(next_state)
        self.succeeded_now = d <= self.success_distance
        self.success = self.success or self.succeeded_now
        self.best = max(self.best, float(np.clip(1.0 - d / self.start, 0.0, 1.0)))

    def result(self) -> tuple[float, bool]:
        return (1.0 if self.success else self.best), self.success

    def sparse_reward(self, state: State, action: np.ndarray, next_state: State) -> float:
        return float(self.distance(next_state) <= self.success_distance)


class GoalDistance(EpisodeScorer):
    """Goal-conditioned envs (Fetch): distance between `state.achieved_goal` and `state.goal` at the end.

    Success as Gymnasium-Robotics' `is_success` at the episode's last step (distance < `success_distance`,
    0.05 m for Fetch). Fitness: minus the final distance in metres.
    """

    def __init__(self, success_distance: float = 0.05) -> None:
        self.success_distance = success_distance
        self.final = float("inf")

    @property
    def unit(self) -> str:
        """Fitness unit and direction, as the designer is told it."""
        return (
            "m: minus the distance from `state.achieved_goal` (the object, or the gripper where there is none) to "
            "`state.goal` at the episode's end; higher (closer to 0) is better"
        )

    @staticmethod
    def distance(state: State) -> float:
        return float(np.linalg.norm(state.achieved_goal[:3] - state.goal[:3]))

    def reset(self, state: State) -> None:
        self.final = self.distance(state)

    def step(self, state: State, action: np.ndarray, next_state: State) -> None:
        self.final = self.distance(next_state)

    def result(self) -> tuple[float, bool]:
        return -self.final, self.final < self.success_distance

    def sparse_reward(self, state: State, action: np.ndarray, next_state: State) -> float:
        return float(self.distance(next_state) < self.success_distance)


def quat_angle(a: np.ndarray, b: np.ndarray) -> float:
    """Rotation angle (rad) between two unit quaternions (w, x, y, z), as Gymnasium-Robotics measures it."""
    w = abs(float(np.dot(a / np.linalg.norm(a), b / np.linalg.norm(b))))
    return float(2.0 * np.arccos(min(1.0, w)))


class HandRotation(EpisodeScorer):
    """Shadow Hand manipulate: the object's orientation (`achieved_goal[3:]`) against the goal's.

    Success as the env's `_is_success` at the last step (angle < `success_angle`, 0.1 rad) with the object
    still above `min_height` (not dropped). Fitness: minus the final angle in radians, minus pi if dropped.
    """

    def __init__(self, success_angle: float = 0.1, min_height: float = 0.04) -> None:
        self.success_angle, self.min_height = success_angle, min_height
        self.angle, self.dropped = np.pi, False

    @property
    def unit(self) -> str:
        """Fitness unit and direction, as the designer is told it."""
        return "rad: minus the object-to-goal rotation angle at the episode's end (minus pi more if dropped); higher is better"

    def _angle(self, state: State) -> float:
        return quat_angle(state.achieved_goal[3:7], state.goal[3:7])

    def reset(self, state: State) -> None:
        self.angle, self.dropped = self._angle(state), False

    def step(self, state: State, action: np.ndarray, next_state: State) -> None:
        self.angle = self._angle(next_state)
        self.dropped = self.dropped or float(next_state.achieved_goal[2]) < self.min_height

    def result(self) -> tuple[float, bool]:
        return -self.angle - (np.pi if self.dropped else 0.0), bool(
            self.angle < self.success_angle and not self.dropped
        )

    def sparse_reward(self, state: State, action: np.ndarray, next_state: State) -> float:
        return float(self._angle(next_state) < self.success_angle)


class HeldGoal(EpisodeScorer):
    """Adroit: a goal that must hold for `hold_steps` steps (DAPG's success: goal achieved for >= 25 steps;
    Rajeswaran et al., RSS 2018).

    The goal is either a joint angle at least `min_qpos` (door: hinge `door_hinge` >= 1.35 rad) or two sites
    closer than `max_distance` (hammer: nail `S_target` within 0.01 m of `nail_goal`). Fitness: the number
    of steps the goal held, as a fraction of `hold_steps` (capped at 1), plus the best progress towards it
    (0 to 1) until then; so 0 to 2, success at 2.
    """

    def __init__(
        self,
        joint: str | None = None,
        min_qpos: float | None = None,
        sites: list[str] | None = None,
        max_distance: float | None = None,
        hold_steps: int = 25,
    ) -> None:
        if (joint is None) == (sites is None):
            raise TypeError("HeldGoal needs either joint/min_qpos or sites/max_distance")
        self.joint, self.min_qpos, self.sites, self.max_distance = joint, min_qpos, sites, max_distance
        self.hold_steps = hold_steps
        self.held, self.progress, self.start = 0, 0.0, 1.0

    @property
    def unit(self) -> str:
        """Fitness unit and direction, as the designer is told it."""
        return (
            f"0 to 2: best progress towards the goal (0 to 1) plus the steps it held as a fraction of "
            f"{self.hold_steps} (0 to 1); higher is better"
        )

    def _gap(self, state: State) -> float:
        """How far from the goal (<= 0: achieved)."""
        if self.joint is not None:
            return float(self.min_qpos - state.joint(self.joint).qpos)
        a, b = (state.site(s).pos for s in self.sites)
        return float(np.linalg.norm(a - b) - self.max_distance)

    def reset(self, state: State) -> None:
        self.start = max(self._gap(state), 1e-6)
        self.held, self.progress = 0, 0.0

    def step(self, state: State, action: np.ndarray, next_state: State) -> None:
        gap = self._gap(next_state)
        self.held += gap <= 0
        self.progress = max(self.progress, float(np.clip(1.0 - gap / self.start, 0.0, 1.0)))

    def result(self) -> tuple[float, bool]:
        return self.progress + min(1.0, self.held / self.hold_steps), self.held >= self.hold_steps

    def sparse_reward(self, state: State, action: np.ndarray, next_state: State) -> float:
        return float(self._gap(next_state) <= 0)
