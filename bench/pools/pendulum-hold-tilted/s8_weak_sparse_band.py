"""Hand-written pool entry, label: weak. Sparse: 1 inside the success band (within 0.15 rad of the tilt), else 0;
a random policy almost never gets there, so there is little to learn from."""

import math


def compute_reward(state, action, next_state):
    theta = math.atan2(float(next_state.obs[1]), float(next_state.obs[0]))
    error = math.atan2(math.sin(theta - 0.3), math.cos(theta - 0.3))
    in_band = 1.0 if abs(error) < 0.15 else 0.0
    return in_band, {"in_band": in_band}
