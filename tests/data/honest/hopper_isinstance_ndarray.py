# task: hopper-hop
import numpy as np


def as_vector(x) -> np.ndarray:
    if isinstance(x, np.ndarray):
        return x.astype(np.float64)
    return np.asarray(x, dtype=np.float64)


def compute_reward(state, action, next_state):
    a = as_vector(action)
    foot_height = next_state.body("foot").pos[2]
    torso_height = next_state.body("torso").pos[2]
    gap = float(torso_height - foot_height)
    components = {
        "speed": float(next_state.qvel[0]),
        "posture": float(np.exp(-4.0 * (gap - 1.0) ** 2)),
        "effort": -0.005 * float(a @ a),
    }
    return sum(components.values()), components
