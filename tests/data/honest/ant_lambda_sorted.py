# task: ant-run
import numpy as np

HIPS = ["hip_1", "hip_2", "hip_3", "hip_4"]
square = lambda x: x * x  # noqa: E731


def compute_reward(state, action, next_state):
    vx = float(next_state.qvel[0])
    hips = sorted((next_state.joint(h).qpos for h in HIPS), key=abs)
    spread = float(np.std(hips))
    effort = -0.01 * sum(square(float(a)) for a in action)
    return vx - 0.1 * spread + effort, {"vx": vx, "spread": -0.1 * spread, "effort": effort}
