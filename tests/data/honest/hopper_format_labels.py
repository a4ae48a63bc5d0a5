# task: hopper-hop
# ruff: noqa: UP032
import math

import numpy as np

TERMS = ("forward", "height", "effort")


def compute_reward(state, action, next_state):
    velocity = next_state.joint("rootx").qvel
    height = next_state.joint("rootz").qpos
    values = [velocity, math.tanh(max(0.0, height - 0.8)), -0.001 * float(np.dot(action, action))]
    components = {"{}".format(name): float(v) for name, v in zip(TERMS, values)}
    components["{}_{}".format("airborne", "bonus")] = 0.5 if height > 1.4 else 0.0
    return sum(components.values()), components
