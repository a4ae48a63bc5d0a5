"""Hand-written pool entry, label: good. Staged: first match the goal's height (minus the vertical gap), then, only
once the height is within 2 cm, close the horizontal gap (weighted more), and a bonus inside the 0.05 m success
radius. Right at the end, but the horizontal signal is gated behind a tight first stage that a noisy policy keeps
leaving, so it is expected to learn slowly."""

import numpy as np

HEIGHT_WEIGHT = 1.0
HEIGHT_TOL = 0.02  # m: the first stage is done when the vertical gap is below this
HORIZONTAL_WEIGHT = 2.0
HORIZONTAL_CAP = 0.3  # m: the horizontal gap charged while the first stage is not done
SUCCESS_RADIUS = 0.05
SUCCESS_BONUS = 0.5


def compute_reward(state, action, next_state):
    gap = next_state.achieved_goal - next_state.goal
    height_gap = abs(float(gap[2]))
    horizontal_gap = float(np.linalg.norm(gap[:2]))
    staged_gap = horizontal_gap if height_gap < HEIGHT_TOL else HORIZONTAL_CAP
    distance = float(np.linalg.norm(gap))
    components = {
        "height": -HEIGHT_WEIGHT * height_gap,
        "horizontal": -HORIZONTAL_WEIGHT * staged_gap,
        "on_goal": SUCCESS_BONUS if distance < SUCCESS_RADIUS else 0.0,
    }
    return sum(components.values()), components
