"""Hand-written pool entry, label: buggy. A misspelt attribute (`achived_goal`): the State has no such field, the
critic's smoke run raises AttributeError on the first real state and asks for a repair."""

import numpy as np


def compute_reward(state, action, next_state):
    distance = float(np.linalg.norm(next_state.achived_goal - next_state.goal))
    components = {"distance": -2.0 * distance}
    return sum(components.values()), components
