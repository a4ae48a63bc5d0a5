# task: walker2d-walk
import numpy as np


def _feet_heights(s):
    return float(s.body("foot").pos[2]), float(s.body("foot_left").pos[2])


def compute_reward(state, action, next_state):
    right, left = _feet_heights(next_state)
    alternate = 0.2 * float(np.tanh(5.0 * abs(right - left)))
    forward = float(next_state.body("torso").linvel[0])
    height = float(next_state.body("torso").pos[2])
    stand = 1.0 if height > 0.8 else -1.0
    return forward + alternate + stand, {"forward": forward, "alternate": alternate, "stand": stand}
