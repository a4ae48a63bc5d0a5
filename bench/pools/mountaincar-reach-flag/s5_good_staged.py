"""Hand-written pool entry, label: good. Staged: first gain speed in either direction, then, once moving right
high on the right slope, climb; the flag pays most; a small time cost keeps every step's total below the bonus."""

import numpy as np

SPEED_GAIN_WEIGHT = 10.0
CLIMB_WEIGHT = 20.0
CLIMB_START = -0.2  # positions right of this are the right hill's slope
FLAG_BONUS = 100.0
TIME_COST = 0.05


def compute_reward(state, action, next_state):
    position, velocity = float(next_state.obs[0]), float(next_state.obs[1])
    speed_gain = (abs(velocity) - abs(float(state.obs[1]))) / 0.07
    climbing = position > CLIMB_START and velocity > 0.0
    components = {
        "speed_gain": SPEED_GAIN_WEIGHT * speed_gain,
        "climb": CLIMB_WEIGHT * (position - float(state.obs[0])) if climbing else 0.0,
        "flag": FLAG_BONUS if position >= 0.45 else 0.0,
        "time": -TIME_COST,
        "effort": -0.05 * float(np.sum(np.square(action))),
    }
    return sum(components.values()), components
