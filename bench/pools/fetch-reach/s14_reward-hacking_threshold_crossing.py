"""Hand-written pool entry, label: reward-hacking. A "reached it" bonus paid on the step the gripper enters the
0.05 m success radius (outside before, inside after), plus a faint pull: meant as a one-off event, but it pays
again on every re-entry, so the gripper darts in and out across the boundary instead of holding at the goal, and
the episode ends on or off the sphere's edge."""

import numpy as np

SUCCESS_RADIUS = 0.05
ENTRY_BONUS = 1.0
PULL_WEIGHT = 0.1


def compute_reward(state, action, next_state):
    before = float(np.linalg.norm(state.achieved_goal - state.goal))
    after = float(np.linalg.norm(next_state.achieved_goal - next_state.goal))
    entered = before >= SUCCESS_RADIUS and after < SUCCESS_RADIUS
    components = {
        "entered": ENTRY_BONUS if entered else 0.0,
        "pull": -PULL_WEIGHT * after,
    }
    return sum(components.values()), components
