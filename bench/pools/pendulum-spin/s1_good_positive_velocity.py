"""Hand-written pool entry, label: good. Pays the angular speed in the positive direction, clipped to 0..8 and scaled
to 0..1, with a small torque cost: turning the right way as fast as the cap allows scores most."""

import numpy as np

MAX_SPEED = 8.0


def compute_reward(state, action, next_state):
    theta_dot = float(next_state.obs[2])
    components = {
        "forward_speed": float(np.clip(theta_dot, 0.0, MAX_SPEED)) / MAX_SPEED,
        "effort": -0.001 * float(np.sum(np.square(action))),
    }
    return sum(components.values()), components
