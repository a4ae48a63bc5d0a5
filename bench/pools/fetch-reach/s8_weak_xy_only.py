"""Hand-written pool entry, label: weak. Only the horizontal (xy) gap to the goal, as if the goal lay on the table:
the distance falls fast at first, but the height, which the task also needs matched (the goal is in the air, up to
0.15 m above or below the start), is never paid for, so the gripper stops over or under the goal."""

import numpy as np


def compute_reward(state, action, next_state):
    gap = next_state.achieved_goal[:2] - next_state.goal[:2]
    components = {"horizontal": -float(np.linalg.norm(gap))}
    return sum(components.values()), components
