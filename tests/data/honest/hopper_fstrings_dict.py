# task: hopper-hop
import numpy as np

WEIGHTS = {"forward": 1.0, "upright": 0.3, "effort": -0.01}


def compute_reward(state, action, next_state):
    terms = {
        "forward": float(next_state.qvel[0]),
        "upright": float(np.cos(next_state.qpos[2])),
        "effort": float(np.square(action).sum()),
    }
    components = {f"{name}": WEIGHTS.get(name, 0.0) * value for name, value in terms.items()}
    components[f"w_{len(WEIGHTS)}"] = 0.0
    return float(sum(components.values())), components
