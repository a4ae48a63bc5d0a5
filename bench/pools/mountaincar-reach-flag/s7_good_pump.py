"""Hand-written pool entry, label: good. Pumping: pays pushing the way the car already moves (that is what
adds energy), under a larger time cost, so a step's total stays negative and only the flag ends the cost."""

import numpy as np

PUMP_WEIGHT = 0.1
TIME_COST = 0.2
FLAG_BONUS = 100.0


def compute_reward(state, action, next_state):
    velocity = float(next_state.obs[1])
    push = float(action[0])
    components = {
        "pump": PUMP_WEIGHT * float(np.clip(push * np.sign(velocity), 0.0, 1.0)),
        "time": -TIME_COST,
        "flag": FLAG_BONUS if float(next_state.obs[0]) >= 0.45 else 0.0,
    }
    return sum(components.values()), components
