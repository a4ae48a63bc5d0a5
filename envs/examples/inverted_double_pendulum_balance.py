"""Example reward for `inverted-double-pendulum-balance`: keep the tip high and the cart near the centre."""

import math

import numpy as np


def compute_reward(state, action, next_state):
    tip_height = float(next_state.site("tip").pos[2])
    cart_offset = abs(float(next_state.joint("slider").qpos))
    angular_speed = float(np.sum(np.square(next_state.qvel[1:])))
    components = {
        "alive": 1.0,
        "tip_height": tip_height - 1.0,
        "centre": -0.1 * cart_offset,
        "calm": -0.01 * math.tanh(angular_speed),
    }
    return sum(components.values()), components
