"""Hand-written pool entry, label: good. The repair of the slow energy reward: the busy work removed, the energy
gap towards resting upright plus the height and a torque cost."""

import numpy as np

E_UPRIGHT = 15.0


def compute_reward(state, action, next_state):
    cos_theta, theta_dot = float(next_state.obs[0]), float(next_state.obs[2])
    energy = 0.5 * theta_dot**2 + E_UPRIGHT * cos_theta
    components = {
        "energy_gap": -abs(energy - E_UPRIGHT) / (2.0 * E_UPRIGHT),
        "height": cos_theta,
        "effort": -0.001 * float(np.sum(np.square(action))),
    }
    return sum(components.values()), components
