"""Hand-written pool entry, label: good. Alive bonus plus how upright each link is (cosine of its world angle),
a small effort cost."""

import math

import numpy as np


def compute_reward(state, action, next_state):
    lower = float(next_state.joint("hinge").qpos)
    upper = lower + float(next_state.joint("hinge2").qpos)
    components = {
        "alive": 1.0,
        "upright": 0.5 * (math.cos(lower) + math.cos(upper)),
        "effort": -0.01 * float(np.sum(np.square(action))),
    }
    return sum(components.values()), components
