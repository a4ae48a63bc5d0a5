# task: ant-run
import numpy as np


def compute_reward(state, action, next_state):
    root = next_state.joint("root")
    vx = float(root.qvel[0])
    z = float(root.qpos[2])
    healthy = 1.0 if 0.2 <= z <= 1.0 else 0.0
    ctrl = -0.5 * float(np.sum(np.square(action)))
    return vx + healthy + ctrl, {"vx": vx, "healthy": healthy, "ctrl": ctrl}
