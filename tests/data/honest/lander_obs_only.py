# task: lunarlander-land
import numpy as np


def compute_reward(state, action, next_state):
    x, y, vx, vy, angle, spin, left, right = (float(v) for v in next_state.obs[:8])
    distance = -float(np.hypot(x, y))
    speed = -float(np.hypot(vx, vy))
    tilt = -abs(angle)
    legs = 0.1 * (left + right)
    parts = {"distance": distance, "speed": speed, "tilt": tilt, "legs": legs}
    return sum(parts.values()), parts
