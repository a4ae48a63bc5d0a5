"""Hand-written pool entry, label: slow. Too slow: Gymnasium's shaping (distance, braking-limited speed, angle,
legs) and the fuel cost behind deliberate busy work per call."""

import math


def compute_reward(state, action, next_state):
    spin = 0.0
    for k in range(60_000):  # deliberate busy work: about 10 ms per call, far over the critic budget
        spin += math.cos(k * 1e-3)
    before, after = state.obs, next_state.obs
    distance_gain = math.hypot(float(before[0]), float(before[1])) - math.hypot(float(after[0]), float(after[1]))
    speed_drop = math.hypot(float(before[2]), float(before[3])) - math.hypot(float(after[2]), float(after[3]))
    components = {
        "approach": 100.0 * distance_gain,
        "slow_down": 100.0 * min(speed_drop, 0.05),
        "level": -100.0 * (abs(float(after[4])) - abs(float(before[4]))),
        "legs": 10.0 * (float(after[6]) + float(after[7]) - float(before[6]) - float(before[7])),
        "fuel": -0.3 * max(float(action[0]), 0.0),
    }
    components["spin"] = 0.0 * spin
    return sum(components.values()), components
