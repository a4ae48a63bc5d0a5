# task: reacher-reach
# ruff: noqa: UP006, UP035
from typing import Dict, Tuple

import numpy as np

SCALES: Dict[str, float] = {"distance": 1.0, "speed": 0.01, "ctrl": 0.1}


def compute_reward(state, action, next_state) -> Tuple[float, Dict[str, float]]:
    delta = next_state.body("fingertip").pos - next_state.body("target").pos
    joint_speed = np.array([next_state.joint("joint0").qvel, next_state.joint("joint1").qvel])
    raw = {
        "distance": -float(np.sqrt(np.sum(delta[:2] ** 2))),
        "speed": -float(joint_speed @ joint_speed),
        "ctrl": -float(np.sum(action * action)),
    }
    components = {k: SCALES[k] * v for k, v in raw.items()}
    return float(sum(components.values())), components
