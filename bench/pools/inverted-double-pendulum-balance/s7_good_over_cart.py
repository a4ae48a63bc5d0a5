"""Hand-written pool entry, label: good. Alive bonus, the tip kept right above the cart, a little calm."""

import numpy as np


def compute_reward(state, action, next_state):
    tip = next_state.site("tip").pos
    cart = next_state.body("cart").pos
    hinge_speeds = np.asarray(next_state.qvel[1:3], dtype=float)
    components = {
        "alive": 1.0,
        "over_cart": -abs(float(tip[0] - cart[0])),
        "calm": -0.01 * float(np.sum(np.square(hinge_speeds))),
    }
    return sum(components.values()), components
