"""Hand-written pool entry, label: good. Staged: far from the top, pump the pendulum's energy towards the energy of
resting upright (Pendulum-v1: g = 10, m = 1, l = 1, so theta_ddot = 15 sin(theta) + 3 u and E = theta_dot^2 / 2 +
15 cos(theta)); near the top, a bonus for being there and being slow."""

import math

import numpy as np

E_UPRIGHT = 15.0  # theta_dot = 0, theta = 0
E_SCALE = 30.0  # from hanging at rest (-15) to upright at rest (+15)
NEAR_TOP = 0.5  # rad
TOP_BONUS = 2.0


def compute_reward(state, action, next_state):
    cos_theta, sin_theta, theta_dot = (float(v) for v in next_state.obs[:3])
    theta = math.atan2(sin_theta, cos_theta)
    energy = 0.5 * theta_dot**2 + E_UPRIGHT * cos_theta
    near = abs(theta) < NEAR_TOP
    components = {
        "energy_gap": 0.0 if near else -abs(energy - E_UPRIGHT) / E_SCALE,
        "top": TOP_BONUS * (1.0 - abs(theta) / NEAR_TOP) if near else 0.0,
        "slow_at_top": -0.1 * theta_dot**2 if near else 0.0,
        "effort": -0.001 * float(np.sum(np.square(action))),
    }
    return sum(components.values()), components
