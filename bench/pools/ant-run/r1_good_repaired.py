"""Hand-written pool entry, label: good. The repair of the buggy entry: the body name fixed."""

import math


def compute_reward(state, action, next_state):
    torso = next_state.body("torso")
    velocity = (torso.pos[0] - state.body("torso").pos[0]) / next_state.dt
    healthy = 0.2 <= float(torso.pos[2]) <= 1.0 and float(torso.xmat[2, 2]) >= math.cos(1.0)
    components = {"forward": 2.0 * float(velocity), "healthy": 0.5 if healthy else 0.0}
    return sum(components.values()), components
