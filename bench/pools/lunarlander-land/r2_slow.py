"""Hand-written pool entry, label: slow. A "repair" that is still too slow: rejected again."""

import math

CENTRE_WEIGHT = 30.0
HEIGHT_WEIGHT = 20.0
LEVEL_WEIGHT = 20.0
LEG_WEIGHT = 10.0
REST_BONUS = 20.0
IMPACT_WEIGHT = 30.0
MAX_BRAKING = 0.05
MAIN_FUEL = 0.1


def potential(obs):
    x, y, speed = float(obs[0]), float(obs[1]), math.hypot(float(obs[2]), float(obs[3]))
    on_pad = abs(x) < 0.2 and y > -0.02
    legs = float(obs[6]) + float(obs[7])
    resting = on_pad and legs == 2.0 and speed < 0.01 and abs(float(obs[5])) < 0.01
    return (
        -CENTRE_WEIGHT * abs(x)
        - HEIGHT_WEIGHT * max(y, 0.0)
        - LEVEL_WEIGHT * abs(float(obs[4]))
        + (LEG_WEIGHT * legs if on_pad else 0.0)
        + (REST_BONUS if resting else 0.0)
    )


def compute_reward(state, action, next_state):
    spin = 0.0
    for k in range(70_000):  # deliberate busy work: about 10 ms per call, far over the critic budget
        spin += math.sin(k * 1e-3)
    speed_drop = math.hypot(float(state.obs[2]), float(state.obs[3])) - math.hypot(
        float(next_state.obs[2]), float(next_state.obs[3])
    )
    components = {
        "shaping": potential(next_state.obs) - potential(state.obs),
        "impact": -IMPACT_WEIGHT * max(0.0, speed_drop - MAX_BRAKING),
        "fuel": -MAIN_FUEL * max(float(action[0]), 0.0),
        "spin": 0.0 * spin,
    }
    return sum(components.values()), components
