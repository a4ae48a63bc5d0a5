"""Hand-written pool entry, label: good. Potential-based progress on position plus kinetic energy, so rolling
back fast is not punished, a step cost, and the flag bonus."""

import numpy as np

MOMENTUM_WEIGHT = 0.5  # kinetic term at full speed, in position units
PROGRESS_SCALE = 10.0
STEP_COST = 0.1
FLAG_BONUS = 100.0


def potential(obs):
    return float(obs[0]) + MOMENTUM_WEIGHT * (float(obs[1]) / 0.07) ** 2


def compute_reward(state, action, next_state):
    components = {
        "progress": PROGRESS_SCALE * (potential(next_state.obs) - potential(state.obs)),
        "step": -STEP_COST,
        "flag": FLAG_BONUS if float(next_state.obs[0]) >= 0.45 else 0.0,
        "effort": -0.05 * float(np.sum(np.square(action))),
    }
    return sum(components.values()), components
