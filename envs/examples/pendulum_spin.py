"""Example reward for `pendulum-spin`: turn in the positive direction, pump energy while too slow to go over the top.

The angle's progress this step (wrapped difference of the two observations' angles, over dt) is the turning rate,
which the episode's net turns add up; below the energy that carries the pole over the top, a pumping term pays
for speed either way, so a swing can build up before it turns. Standalone: numpy and math only,
`compute_reward(state, action, next_state) -> (float, dict)`.
"""

import math

import numpy as np

GRAVITY_TERM = 15.0  # Pendulum-v1's 3 g / (2 l): theta_dot**2 / 2 + 15 cos(theta) is kept without the motor


def angle(obs) -> float:
    return math.atan2(float(obs[1]), float(obs[0]))  # 0 upright, +-pi hanging


def compute_reward(state, action, next_state):
    step = angle(next_state.obs) - angle(state.obs)
    step = math.atan2(math.sin(step), math.cos(step))  # across the +-pi seam too
    rate = step / next_state.dt  # rad/s in the positive direction
    cos_theta, theta_dot = float(next_state.obs[0]), float(next_state.obs[2])
    energy = 0.5 * theta_dot**2 + GRAVITY_TERM * cos_theta  # 15 at rest upright: over the top above that
    components = {
        "turning": 0.1 * rate,
        "pumping": 0.05 * min(energy, GRAVITY_TERM) / GRAVITY_TERM,
        "effort_cost": -0.001 * float(np.sum(np.square(action))),
    }
    return sum(components.values()), components
