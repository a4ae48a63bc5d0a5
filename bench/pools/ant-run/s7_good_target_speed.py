"""Hand-written pool entry, label: good. Exponential tracking of a 3 m/s target speed along +x (wide enough to pull
from a standstill), a linear term for any forward speed, a healthy bonus and a small effort cost."""

import math

import numpy as np

TARGET_SPEED = 3.0  # m/s
SPEED_TEMP = 4.0  # (m/s)^2
LINEAR = 0.5
HEALTHY = 0.5
EFFORT = 0.05


def compute_reward(state, action, next_state):
    torso = next_state.body("torso")
    speed = float(torso.linvel[0])
    healthy = 0.2 <= float(torso.pos[2]) <= 1.0 and float(torso.xmat[2, 2]) >= math.cos(1.0)
    components = {
        "track": 2.0 * math.exp(-((speed - TARGET_SPEED) ** 2) / SPEED_TEMP),
        "forward": LINEAR * float(np.clip(speed, -TARGET_SPEED, TARGET_SPEED)),
        "healthy": HEALTHY if healthy else 0.0,
        "effort": -EFFORT * float(np.sum(np.square(action))),
    }
    return sum(components.values()), components
