"""Hand-written pool entry, label: good. Potential-based progress at a small scale: the decrease of the gripper-goal
distance per step in metres (at most a few cm), plus a faint pull of 0.1 x the distance. Both signals point at the
goal and moving away costs as much as approaching pays, but the rewards are tiny (about 0.01 per step), so it is
expected to learn slowly."""

import numpy as np

PROGRESS_WEIGHT = 1.0
PULL_WEIGHT = 0.1


def compute_reward(state, action, next_state):
    before = float(np.linalg.norm(state.achieved_goal - state.goal))
    after = float(np.linalg.norm(next_state.achieved_goal - next_state.goal))
    components = {
        "progress": PROGRESS_WEIGHT * (before - after),
        "pull": -PULL_WEIGHT * after,
    }
    return sum(components.values()), components
