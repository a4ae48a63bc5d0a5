"""Hand-written pool entry, label: good. The track's height sin(3 x) as a potential: climbing either hill pays
(the swing back builds the run-up), losing height costs the same; the flag pays most."""

import math

import numpy as np

HEIGHT_WEIGHT = 10.0
FLAG_BONUS = 100.0
EFFORT_WEIGHT = 0.01


def compute_reward(state, action, next_state):
    height_gain = math.sin(3.0 * float(next_state.obs[0])) - math.sin(3.0 * float(state.obs[0]))
    components = {
        "height_gain": HEIGHT_WEIGHT * height_gain,
        "flag": FLAG_BONUS if float(next_state.obs[0]) >= 0.45 else 0.0,
        "effort": -EFFORT_WEIGHT * float(np.sum(np.square(action))),
    }
    return sum(components.values()), components
