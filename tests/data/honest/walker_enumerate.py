# task: walker2d-walk
import numpy as np

JOINTS = ["thigh_joint", "leg_joint", "foot_joint", "thigh_left_joint", "leg_left_joint", "foot_left_joint"]


def compute_reward(state, action, next_state):
    speed = float(next_state.qvel[0])
    penalty = 0.0
    for i, name in enumerate(JOINTS):
        limit = 2.5 if i % 3 == 0 else 2.0
        penalty += max(0.0, abs(next_state.joint(name).qvel) - limit) * 0.01
    alive = 1.0 if 0.8 < next_state.qpos[1] < 2.0 else 0.0
    effort = -1e-3 * float(np.sum(np.square(action)))
    return speed + alive - penalty + effort, {"speed": speed, "alive": alive, "penalty": -penalty, "effort": effort}
