# task: hopper-hop
import numpy as np

MIN_HEIGHT = 0.7
MAX_ANGLE = 0.2


def compute_reward(state, action, next_state):
    z = float(next_state.qpos[1])
    angle = float(next_state.qpos[2])
    if z < MIN_HEIGHT or abs(angle) > MAX_ANGLE:
        return -1.0, {"fallen": -1.0, "forward": 0.0}
    forward = float(np.clip(next_state.qvel[0], -2.0, 4.0))
    return forward, {"fallen": 0.0, "forward": forward}
