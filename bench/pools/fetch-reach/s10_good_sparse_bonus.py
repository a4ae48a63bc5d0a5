"""Hand-written pool entry, label: good. Mostly sparse: a bonus of 1 per step inside the 0.05 m success radius and a
shaping term 10x weaker than the plain distance: right at the optimum, but a random arm is inside the radius on
about 1% of its steps and the shaping is faint, so it is expected to learn slowly."""

import numpy as np

SUCCESS_RADIUS = 0.05
SUCCESS_BONUS = 1.0
SHAPING_WEIGHT = 0.1


def compute_reward(state, action, next_state):
    distance = float(np.linalg.norm(next_state.achieved_goal - next_state.goal))
    components = {
        "success": SUCCESS_BONUS if distance < SUCCESS_RADIUS else 0.0,
        "shaping": -SHAPING_WEIGHT * distance,
    }
    return sum(components.values()), components
