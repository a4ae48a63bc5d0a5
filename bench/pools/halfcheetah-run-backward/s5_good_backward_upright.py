"""Hand-written pool entry, label: good. Speed along -x while the torso stays upright (no credit upside down)."""

import math


def compute_reward(state, action, next_state):
    velocity = (next_state.body("torso").pos[0] - state.body("torso").pos[0]) / next_state.dt
    pitch = float(next_state.joint("rooty").qpos)
    components = {"backward": -float(velocity) * max(math.cos(pitch), 0.0), "upright": 0.1 * math.cos(pitch)}
    return sum(components.values()), components
