# task: ant-run
import math

import numpy as np


def upright(quat) -> float:
    w, x, y, z = (float(q) for q in quat)
    return 1.0 - 2.0 * (x * x + y * y)


def compute_reward(state, action, next_state):
    torso = next_state.body("torso")
    forward = float((torso.pos[0] - state.body("torso").pos[0]) / next_state.dt)
    level = upright(torso.quat)
    heading = math.atan2(float(torso.linvel[1]), float(torso.linvel[0]) + 1e-8)
    drift = -0.1 * abs(heading)
    effort = -0.01 * float(np.linalg.norm(action))
    parts = {"forward": forward, "level": 0.2 * level, "drift": drift, "effort": effort}
    return sum(parts.values()), parts
