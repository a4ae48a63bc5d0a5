# task: halfcheetah-run
import numpy as np


def compute_reward(state, action, next_state):
    v = next_state.qvel[0]
    speed = float(np.tanh(v / 5.0)) * 5.0
    pitch = float(np.clip(abs(next_state.qpos[2]), 0.0, np.pi))
    stability = -0.1 * pitch
    effort = -0.05 * float(np.mean(np.abs(action)))
    return speed + stability + effort, {"speed": speed, "stability": stability, "effort": effort}
