"""Hand-written pool entry, label: good. The repair of the typo in s3_buggy_typo: the angles from `obs[0]` and
`obs[1]` (cos and sin) via atan2, the same wrapped progress per second and torque cost."""

import math


def compute_reward(state, action, next_state):
    theta0 = math.atan2(float(state.obs[1]), float(state.obs[0]))
    theta1 = math.atan2(float(next_state.obs[1]), float(next_state.obs[0]))
    delta = math.atan2(math.sin(theta1 - theta0), math.cos(theta1 - theta0))  # wrap the step's change to (-pi, pi]
    components = {
        "progress": delta / state.dt,
        "effort": -0.01 * float(action[0]) ** 2,
    }
    return sum(components.values()), components
