"""Hand-written pool entry, label: good. The torso's velocity along -x, and a penalty once it tilts towards its
back."""

import math


def compute_reward(state, action, next_state):
    torso = next_state.body("torso")
    up = float(torso.xmat[2, 2])  # 1 upright, -1 on its back
    components = {
        "backward": -float(torso.linvel[0]),
        "tilt": -2.0 * max(math.cos(1.0) - up, 0.0),
    }
    return sum(components.values()), components
