"""Hand-written pool entry, label: good. The repair of the array total: the effort summed to a float first."""

import numpy as np


def compute_reward(state, action, next_state):
    velocity = (next_state.body("torso").pos[0] - state.body("torso").pos[0]) / next_state.dt
    effort = 0.1 * float(np.sum(np.square(action)))
    components = {"backward": -float(velocity), "effort": -effort}
    return sum(components.values()), components
