# task: inverted-double-pendulum-balance
import numpy as np


def compute_reward(state, action, next_state):
    tip = next_state.site("tip").pos
    height = float(tip[2])
    centred = -0.1 * float(tip[0]) ** 2
    calm = -0.01 * float(np.sum(np.square(next_state.qvel[1:])))
    return height + centred + calm, {"height": height, "centred": centred, "calm": calm}
